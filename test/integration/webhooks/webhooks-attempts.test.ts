// GET /v1/webhooks/{webhook_id}/deliveries/{delivery_id}/attempts (DECISIONS §3):
// the attempts a real HTTPS receiver on loopback saw, oldest first, and
// delivery_not_found for any delivery that is not this subscription's.
import { randomUUID } from 'node:crypto';
import { expectError } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { startWebhookStack, type WebhookStack } from './webhook-stack';

interface Attempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

let stack: WebhookStack;
let app: { slug: string; key: string; id: string };

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '3s' });
  app = await stack.application();
});
afterAll(() => stack?.close());

const attempts = (subscriptionId: string, deliveryId: string, key = app.key) =>
  stack.api.request('GET', `/v1/webhooks/${subscriptionId}/deliveries/${deliveryId}/attempts`, { token: key });

/** Emits an event to a subscription at `path` and waits for its delivery to be delivered. */
async function deliveredAfter(path: string, key = app.key, appId = app.id): Promise<{ sub: { id: string }; deliveryId: string }> {
  const sub = await stack.subscribe(key, path);
  await stack.emit(appId, 'domain.ready');
  const [record] = await eventually(`the delivery to ${path} delivered`, async () => {
    const list = await stack.deliveries(key, sub.id);
    return list[0]?.state === 'delivered' && list;
  });
  return { sub, deliveryId: record?.id as string };
}

describe('the attempt history', () => {
  it('lists three failures and the success that followed, oldest first', async () => {
    stack.receiver.script('/history', [{ status: 500 }, { status: 503 }, { status: 302, headers: { location: 'https://example.com/' } }, { status: 200, delayMs: 30 }]);
    const { sub, deliveryId } = await deliveredAfter('/history');

    const res = await attempts(sub.id, deliveryId);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['items']);
    const items = res.body.items as Attempt[];
    expect(items.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 500, 'receiver answered HTTP 500'],
      [2, 503, 'receiver answered HTTP 503'],
      [3, 302, 'receiver answered HTTP 302; redirects are not followed'],
      [4, 200, null],
    ]);
    for (const a of items) {
      expect(Object.keys(a).sort()).toEqual(['attempt', 'duration_ms', 'error', 'started_at', 'status_code']);
      expect(a.started_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Number.isInteger(a.duration_ms) && a.duration_ms >= 0).toBe(true);
    }
    // Oldest first, spaced by the retry schedule (100 ms); the last one waited for the 30 ms answer.
    const starts = items.map((a) => Date.parse(a.started_at));
    for (let i = 1; i < starts.length; i++) expect((starts[i] as number) - (starts[i - 1] as number)).toBeGreaterThanOrEqual(90);
    expect(items[3]?.duration_ms).toBeGreaterThanOrEqual(25);
    expect((await stack.deliveries(app.key, sub.id))[0]).toMatchObject({ attempts: 4, last_status_code: 200 });
  });

  it('gives status_code null and the reason when no answer came', async () => {
    stack.receiver.script('/silent', [{ hang: true }]);
    const hangs = await stack.api.request('POST', '/v1/webhooks', { token: app.key, body: { url: stack.receiver.url('/silent'), events: ['domain.ready'] } });
    await stack.emit(app.id, 'domain.ready');
    const [record] = await eventually('the first attempt to time out', async () => {
      const list = await stack.deliveries(app.key, hangs.body.id);
      return (list[0]?.attempts ?? 0) >= 1 && list;
    }, { timeoutMs: 10_000 });
    const [first] = (await attempts(hangs.body.id, record?.id as string)).body.items as Attempt[];
    expect(first).toMatchObject({ attempt: 1, status_code: null, error: 'no answer within 3000 ms' });
    expect(first?.duration_ms).toBeGreaterThanOrEqual(2900);
    await stack.api.request('DELETE', `/v1/webhooks/${hangs.body.id}`, { token: app.key });
  });

  it('is empty for a delivery not attempted yet, and stays readable after a revocation', async () => {
    const sub = await stack.subscribe(app.key, '/later');
    const now = new Date();
    const id = randomUUID();
    await stack.api.store.run((r) => r.webhookDeliveries.insertMany([{
      id, applicationId: app.id, subscriptionId: sub.id, eventId: randomUUID(), eventType: 'domain.ready', payload: '{}', state: 'pending', attempts: 0,
      nextAttemptAt: new Date(now.getTime() + 3_600_000), lastAttemptAt: null, lastStatusCode: null, lastError: null, createdAt: now, deliveredAt: null, replayOf: null, leaseId: null,
    }]));
    expect((await attempts(sub.id, id)).body).toEqual({ items: [] });

    const { sub: revoked, deliveryId } = await deliveredAfter('/revoked-later');
    expect((await stack.api.request('DELETE', `/v1/webhooks/${revoked.id}`, { token: app.key })).status).toBe(200);
    const res = await attempts(revoked.id, deliveryId);
    expect(res.status).toBe(200);
    expect((res.body.items as Attempt[]).map((a) => a.status_code)).toEqual([200]);
  });

  it("answers delivery_not_found for an unknown delivery, another subscription's and another application's", async () => {
    const { sub, deliveryId } = await deliveredAfter('/mine');
    const sibling = await stack.subscribe(app.key, '/sibling');
    const other = await stack.application();
    const { sub: otherSub, deliveryId: otherDelivery } = await deliveredAfter('/theirs', other.key, other.id);

    expect((await attempts(sub.id, deliveryId)).status).toBe(200);
    expectError(await attempts(sub.id, randomUUID()), 404, 'delivery_not_found');
    expectError(await attempts(sub.id, 'not-a-uuid'), 404, 'delivery_not_found');
    // A delivery of another subscription of the same application.
    expectError(await attempts(sibling.id, deliveryId), 404, 'delivery_not_found');
    // Another application's delivery, through one's own subscription.
    expectError(await attempts(sub.id, otherDelivery), 404, 'delivery_not_found');
    // Another application's subscription is no subscription of the caller.
    expectError(await attempts(otherSub.id, otherDelivery), 404, 'webhook_not_found');
    expectError(await attempts(randomUUID(), deliveryId), 404, 'webhook_not_found');
    // The owner reads it.
    expect((await attempts(otherSub.id, otherDelivery, other.key)).status).toBe(200);
  });
});
