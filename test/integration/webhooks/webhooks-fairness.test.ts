// Fair webhook sending (DECISIONS §10) against real HTTPS receivers on
// loopback: the in-flight cap per subscription, another subscription's
// delivery sent past a large backlog, cooling (one attempt at a time across
// dispatcher replicas until one succeeds; a receiver failing 4 of every 5
// attempts too), and the metrics that show it. The cap per application is in
// webhooks-application-share.
// The replay limit and the attempt history are in webhooks-replay-limit and
// webhooks-attempts.
import { setTimeout as sleep } from 'node:timers/promises';
import { isCooling } from '@cds/core';
import { eventually } from '../../support/eventually';
import { sample } from '../metrics/scrape';
import { mostAtOnce, startCountingReceiver, type CountedRequest, type CountingReceiver } from './counting-receiver';
import { dueBacklog, startWebhookStack, type WebhookStack } from './webhook-stack';

const CAP = 3;

let stack: WebhookStack;
let receiver: CountingReceiver;

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: String(CAP), WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '3s' });
  receiver = await startCountingReceiver(stack.ca);
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

const delivered = async (key: string, subscriptionId: string) => (await stack.deliveries(key, subscriptionId)).filter((d) => d.state === 'delivered').length;
const coolingOf = async (subscriptionId: string) => (await stack.api.store.run((r) => r.webhookSubscriptions.coolingStates([subscriptionId]))).get(subscriptionId);
const streakOf = async (subscriptionId: string) => (await coolingOf(subscriptionId))?.failureStreak;
const startedSince = (path: string, at: number): CountedRequest[] => receiver.to(path).filter((r) => r.started >= at);

/**
 * A moment from which every attempt at `path` runs alone. Attempts leased
 * before cooling was seen (at `coolingSince`) have started 500 ms later; the
 * moment is when the last attempt started by then ended. Not a poll for a
 * moment with nothing open: attempts run back to back while cooling, and each
 * one missed spends one of a delivery's 8 attempts (DECISIONS §3).
 */
async function aloneFrom(path: string, coolingSince: number): Promise<number> {
  await sleep(Math.max(0, coolingSince + 500 - Date.now()));
  const cutoff = Date.now();
  const before = receiver.to(path).filter((r) => r.started < cutoff);
  await eventually('the attempts started before cooling to end', () => before.every((r) => r.ended !== null));
  return Math.max(cutoff, ...before.map((r) => r.ended as number));
}

/** What a wait that timed out saw: the subscription's deliveries, its cooling state and the receiver's last requests. */
const explainDeliveries = (key: string, subscriptionId: string, path: string) => async (): Promise<string> => {
  const rows = (await stack.deliveries(key, subscriptionId)).map((d) => `${d.id} ${d.state} attempts=${d.attempts} next=${d.next_attempt_at} last=${d.last_status_code} ${d.last_error ?? ''}`);
  const requests = receiver.to(path).slice(-12).map((r) => `${r.eventId} ${r.status} at ${r.started} ${r.ended === null ? 'open' : `${r.ended - r.started} ms`}`);
  return [`now ${Date.now()}, cooling ${JSON.stringify(await coolingOf(subscriptionId))}`, ...rows, 'last requests:', ...requests].join('\n');
};

describe('sending shared between subscriptions', () => {
  it(`runs at most ${CAP} attempts of one subscription at once, and counts those that waited for their turn`, async () => {
    const app = await stack.application();
    receiver.answer('/cap', { status: 200, delayMs: 250 });
    const sub = await stack.subscribe(app.key, '/cap', { receiver });
    const deferredBefore = (await sample('cds_webhook_deliveries_deferred_total', 'reason="in_flight_cap"')) ?? 0;

    for (let i = 0; i < 15; i++) await stack.emit(app.id, 'domain.ready');
    await eventually('15 deliveries delivered', async () => (await delivered(app.key, sub.id)) === 15, { timeoutMs: 30_000 });

    const requests = receiver.to('/cap');
    expect(requests).toHaveLength(15);
    // Never more than the cap at the receiver, and the cap reached: the attempts did run side by side.
    expect(mostAtOnce(requests)).toBe(CAP);
    expect(await sample('cds_webhook_deliveries_deferred_total', 'reason="in_flight_cap"')).toBeGreaterThan(deferredBefore);
  });

  it("sends another subscription's deliveries, new and replayed, while one subscription's large backlog is still due", async () => {
    const busy = await stack.application();
    const other = await stack.application();
    receiver.answer('/backlog', { status: 200, delayMs: 100 });
    receiver.answer('/newcomer', { status: 200 });
    const flooded = await stack.subscribe(busy.key, '/backlog', { receiver });
    const newcomer = await stack.subscribe(other.key, '/newcomer', { receiver });
    const BACKLOG = 150; // at 3 × 100 ms at a time: some 5 s of sending
    await stack.api.store.run((r) => r.webhookDeliveries.insertMany(dueBacklog(busy.id, flooded.id, BACKLOG)));
    await eventually('the backlog to be sending', () => receiver.to('/backlog').length >= CAP);

    // A new event: fanned out and sent at once.
    const eventId = await stack.emit(other.id, 'domain.ready');
    const [first] = await eventually("the newcomer's delivery", () => receiver.to('/newcomer').length >= 1 && receiver.to('/newcomer'));
    expect(first?.eventId).toBe(eventId);
    // A replay is written due now: the dispatcher's next lease finds it past the backlog.
    const [original] = await eventually('the delivered record', async () => (await delivered(other.key, newcomer.id)) === 1 && stack.deliveries(other.key, newcomer.id));
    const replay = await stack.api.request('POST', `/v1/webhooks/${newcomer.id}/deliveries/${original?.id}/replay`, { token: other.key });
    expect(replay.status).toBe(202);
    await eventually('the replay sent', () => receiver.to('/newcomer').length >= 2);

    const sentOfBacklog = receiver.to('/backlog').length;
    console.log(`newcomer's replay sent when ${sentOfBacklog} of the ${BACKLOG} backlog deliveries had been`);
    expect(sentOfBacklog).toBeLessThan(BACKLOG / 2);
    // And the backlog still goes out in full.
    await eventually('the backlog delivered', async () => (await delivered(busy.key, flooded.id)) === BACKLOG, { timeoutMs: 60_000 });
    expect(mostAtOnce(receiver.to('/backlog'))).toBeLessThanOrEqual(CAP);
  });
});

describe('cooling', () => {
  it('sends one attempt at a time, across two dispatchers, to a subscription whose last 5 attempts failed, until one succeeds', async () => {
    // Another replica over the same database and bus.
    await stack.startDispatcher();
    const app = await stack.application();
    receiver.answer('/cooling', { status: 500, delayMs: 150 });
    const sub = await stack.subscribe(app.key, '/cooling', { receiver });
    for (let i = 0; i < 6; i++) await stack.emit(app.id, 'domain.ready');

    // The first attempts run side by side; once 5 in a row failed, the subscription is cooling.
    await eventually('5 failures in a row', async () => ((await streakOf(sub.id)) ?? 0) >= 5);
    expect(mostAtOnce(receiver.to('/cooling'))).toBeGreaterThan(1);
    // Attempts leased before that may still start: once they ended, every attempt runs alone.
    const alone = await aloneFrom('/cooling', Date.now());
    const explain = explainDeliveries(app.key, sub.id, '/cooling');
    await eventually('6 attempts while cooling', () => startedSince('/cooling', alone).length >= 6, { timeoutMs: 20_000, explain });
    expect(mostAtOnce(startedSince('/cooling', alone))).toBe(1);
    expect(await sample('cds_webhook_subscriptions_cooling')).toBe(1);
    // The retry schedule is unchanged: no delivery waits longer than its 100 ms for its own sake, only for its turn.
    expect((await stack.deliveries(app.key, sub.id)).every((d) => d.state === 'pending')).toBe(true);

    // A success ends cooling: the deliveries still pending go out side by side again.
    receiver.answer('/cooling', { status: 200, delayMs: 300 });
    const [success] = await eventually('an attempt that succeeds', () => {
      const ok = receiver.to('/cooling').filter((r) => r.status === 200);
      return ok.length > 0 && ok;
    });
    await eventually('every delivery delivered', async () => (await delivered(app.key, sub.id)) === 6, { timeoutMs: 20_000, explain });
    expect(mostAtOnce(startedSince('/cooling', (success as CountedRequest).started))).toBeGreaterThan(1);
    expect(await streakOf(sub.id)).toBe(0);
    expect(await sample('cds_webhook_subscriptions_cooling')).toBe(0);
  });

  it('sends one attempt at a time to a subscription whose receiver fails 4 of every 5 attempts, its successes notwithstanding', async () => {
    const app = await stack.application();
    receiver.answer('/mostly-failing', { cycle: [500, 500, 500, 500, 200], delayMs: 100 });
    const sub = await stack.subscribe(app.key, '/mostly-failing', { receiver });
    for (let i = 0; i < 20; i++) await stack.emit(app.id, 'domain.ready');

    // Cooling once 16 of the last 20 failed, with no 5 failures in a row.
    await eventually('cooling', async () => {
      const state = await coolingOf(sub.id);
      return state !== undefined && isCooling(state) && state.failureStreak < 5;
    }, { timeoutMs: 30_000 });
    expect(receiver.to('/mostly-failing').filter((r) => r.status === 200).length).toBeGreaterThan(0);
    // Attempts leased before that may still start: once they ended, every attempt runs alone, successes included.
    const alone = await aloneFrom('/mostly-failing', Date.now());
    await eventually('10 attempts while cooling', () => startedSince('/mostly-failing', alone).filter((r) => r.ended !== null).length >= 10, {
      timeoutMs: 30_000, explain: explainDeliveries(app.key, sub.id, '/mostly-failing'),
    });
    const whileCooling = startedSince('/mostly-failing', alone);
    expect(whileCooling.some((r) => r.status === 200)).toBe(true);
    expect(mostAtOnce(whileCooling)).toBe(1);
    const state = await coolingOf(sub.id);
    expect(state?.failureStreak).toBeLessThan(5);
    expect(state && isCooling(state)).toBe(true);
  });
});
