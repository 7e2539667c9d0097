// One application's share of a dispatcher (DECISIONS §10, docs/webhooks.md)
// against real HTTPS receivers on loopback: however many subscriptions an
// application has, their attempts together hold at most half the dispatcher's
// slots, and another application's deliveries go out at once beside them.
import { eventually } from '../../support/eventually';
import { sample } from '../metrics/scrape';
import { mostAtOnce, startCountingReceiver, type CountingReceiver } from './counting-receiver';
import { dueBacklog, startWebhookStack, type WebhookStack } from './webhook-stack';

/** The dispatcher's slots: an application gets half. */
const SLOTS = 8;
const PER_SUBSCRIPTION = 3;

let stack: WebhookStack;
let receiver: CountingReceiver;

beforeAll(async () => {
  stack = await startWebhookStack(
    { WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: String(PER_SUBSCRIPTION), WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '5s' },
    undefined,
    { concurrency: SLOTS },
  );
  receiver = await startCountingReceiver(stack.ca);
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

it(`gives an application's subscriptions together at most ${SLOTS / 2} of ${SLOTS} slots, and another application's deliveries the rest at once`, async () => {
  const crowded = await stack.application();
  const other = await stack.application();
  const paths = ['/crowd-1', '/crowd-2', '/crowd-3', '/crowd-4'];
  // 4 subscriptions of 3 slots each could hold 12: more than the dispatcher has.
  for (const path of paths) receiver.answer(path, { status: 200, delayMs: 1500 });
  receiver.answer('/other', { status: 200 });
  const crowd: Array<{ id: string }> = [];
  for (const path of paths) crowd.push(await stack.subscribe(crowded.key, path, { receiver }));
  const otherSub = await stack.subscribe(other.key, '/other', { receiver });
  const deferredBefore = (await sample('cds_webhook_deliveries_deferred_total', 'reason="application_cap"')) ?? 0;
  await stack.api.store.run((r) => r.webhookDeliveries.insertMany(crowd.flatMap((sub) => dueBacklog(crowded.id, sub.id, 6))));
  const crowdRequests = () => receiver.requests.filter((r) => paths.includes(r.path));
  await eventually("the crowded application's first attempts", () => crowdRequests().length >= SLOTS / 2);

  // The other application's new events: sent at once, beside the crowded application's first attempts.
  for (let i = 0; i < 3; i++) await stack.emit(other.id, 'domain.ready');
  await eventually("the other application's deliveries", () => receiver.to('/other').filter((r) => r.ended !== null).length === 3, { timeoutMs: 10_000 });
  const firstEnded = Math.min(...crowdRequests().map((r) => r.ended ?? Number.POSITIVE_INFINITY));
  expect(Math.max(...receiver.to('/other').map((r) => r.started))).toBeLessThan(firstEnded);

  await eventually("the crowded application's backlog delivered", () => crowdRequests().filter((r) => r.status === 200).length === 24, { timeoutMs: 30_000 });
  expect(mostAtOnce(crowdRequests())).toBe(SLOTS / 2);
  expect(await sample('cds_webhook_deliveries_deferred_total', 'reason="application_cap"')).toBeGreaterThan(deferredBefore);
  const list = await stack.api.request('GET', `/v1/webhooks/${otherSub.id}/deliveries`, { token: other.key });
  expect((list.body as Array<{ state: string }>).map((d) => d.state)).toEqual(['delivered', 'delivered', 'delivered']);
});
