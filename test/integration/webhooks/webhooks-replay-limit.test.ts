// WEBHOOK_PENDING_LIMIT (DECISIONS §10): a replay, of one delivery or since a
// time, that would raise the application's pending deliveries above the limit
// answers 429 rate_limited with Retry-After: 60 and details {limit, pending};
// of replays racing for the last places, only as many pass as fit; deliveries
// of new events are always created. The receiver never answers, so what is
// queued stays pending while the test counts it.
import { randomUUID } from 'node:crypto';
import type { WebhookDeliveryRow } from '@cds/data';
import { expectError, type Answer } from '../../support/api-harness';
import { startWebhookStack, type WebhookStack } from './webhook-stack';

const LIMIT = 10;

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_PENDING_LIMIT: String(LIMIT), WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TIMEOUT: '3s' });
  stack.receiver.script('/stuck', [{ hang: true }]);
});
afterAll(() => stack?.close());

/** Deliveries written straight into the database; pending ones are not due for an hour, so nothing sends them. */
async function insertDeliveries(app: { id: string }, sub: { id: string }, count: number, state: WebhookDeliveryRow['state'], createdAt = new Date()): Promise<WebhookDeliveryRow[]> {
  const rows = Array.from({ length: count }, (): WebhookDeliveryRow => ({
    id: randomUUID(), applicationId: app.id, subscriptionId: sub.id, eventId: randomUUID(), eventType: 'domain.ready', payload: '{}', state,
    attempts: state === 'pending' ? 0 : 1, nextAttemptAt: state === 'pending' ? new Date(Date.now() + 3_600_000) : null, lastAttemptAt: null,
    lastStatusCode: null, lastError: null, createdAt, deliveredAt: null, replayOf: null, leaseId: null,
  }));
  await stack.api.store.run((r) => r.webhookDeliveries.insertMany(rows));
  return rows;
}

const pendingOf = (app: { id: string }) => stack.api.store.run((r) => r.webhookDeliveries.countPending(app.id));
const replayOne = (key: string, sub: { id: string }, delivery: { id: string }) =>
  stack.api.request('POST', `/v1/webhooks/${sub.id}/deliveries/${delivery.id}/replay`, { token: key });
const replaySince = (key: string, sub: { id: string }, since: Date) =>
  stack.api.request('POST', `/v1/webhooks/${sub.id}/replay?since=${encodeURIComponent(since.toISOString())}`, { token: key });

function expectPendingLimit(answer: Answer, pending: number): void {
  expect(expectError(answer, 429, 'rate_limited')).toEqual({ limit: LIMIT, pending });
  expect(answer.headers.get('retry-after')).toBe('60');
}

describe('the pending limit', () => {
  it('lets a replay of one delivery fill the limit, and refuses the next with Retry-After and details', async () => {
    const app = await stack.application();
    const sub = await stack.subscribe(app.key, '/stuck');
    const [source] = await insertDeliveries(app, sub, LIMIT - 1, 'pending');

    expect((await replayOne(app.key, sub, source as WebhookDeliveryRow)).status).toBe(202);
    expect(await pendingOf(app)).toBe(LIMIT);
    expectPendingLimit(await replayOne(app.key, sub, source as WebhookDeliveryRow), LIMIT);
    expect(await pendingOf(app)).toBe(LIMIT);
  });

  it('refuses a replay since a time that would go above it, on any subscription of the application, and allows one that fits', async () => {
    const app = await stack.application();
    const [a, b] = [await stack.subscribe(app.key, '/stuck'), await stack.subscribe(app.key, '/stuck')];
    const old = new Date(Date.now() - 3_600_000);
    await insertDeliveries(app, a, 8, 'pending', old);
    const recent = new Date(Date.now() - 60_000);
    await insertDeliveries(app, b, 2, 'delivered', new Date(recent.getTime() + 1000));
    await insertDeliveries(app, b, 1, 'delivered', new Date(old.getTime() + 1000));

    // Since `old` on b: 3 more on top of 8 pending (a's count too: the limit is the application's).
    expectPendingLimit(await replaySince(app.key, b, old), 8);
    const fits = await replaySince(app.key, b, recent);
    expect(fits.status).toBe(202);
    expect(fits.body.replayed).toBe(2);
    expect(await pendingOf(app)).toBe(LIMIT);
    // Replaying nothing raises nothing.
    const none = await replaySince(app.key, a, new Date(Date.now() + 60_000));
    expect(none.status).toBe(202);
    expect(none.body.replayed).toBe(0);
  });

  it('always creates the deliveries of new events, above the limit too', async () => {
    const app = await stack.application();
    const sub = await stack.subscribe(app.key, '/stuck');
    const [source] = await insertDeliveries(app, sub, LIMIT, 'pending');
    expectPendingLimit(await replayOne(app.key, sub, source as WebhookDeliveryRow), LIMIT);

    const eventId = await stack.emit(app.id, 'domain.ready');
    await stack.settled();
    const list = (await stack.api.request('GET', `/v1/webhooks/${sub.id}/deliveries?limit=200`, { token: app.key })).body as Array<{ event_id: string; state: string }>;
    expect(list.filter((d) => d.event_id === eventId)).toEqual([expect.objectContaining({ state: 'pending' })]);
    expect(await pendingOf(app)).toBe(LIMIT + 1);
    expectPendingLimit(await replayOne(app.key, sub, source as WebhookDeliveryRow), LIMIT + 1);
  });

  it('lets only one of several replays racing for the last place pass, whichever subscription each is on', async () => {
    const app = await stack.application();
    const [a, b] = [await stack.subscribe(app.key, '/stuck'), await stack.subscribe(app.key, '/stuck')];
    const [sourceA] = await insertDeliveries(app, a, LIMIT - 1, 'pending');
    const [sourceB] = await insertDeliveries(app, b, 1, 'delivered');

    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? replayOne(app.key, b, sourceB as WebhookDeliveryRow) : replayOne(app.key, a, sourceA as WebhookDeliveryRow))));
    expect(answers.filter((x) => x.status === 202)).toHaveLength(1);
    for (const refused of answers.filter((x) => x.status !== 202)) expectPendingLimit(refused, LIMIT);
    expect(await pendingOf(app)).toBe(LIMIT);
  });
});
