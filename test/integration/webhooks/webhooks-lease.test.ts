// The fair lease of due deliveries (DECISIONS §10) on the database itself:
// every due subscription gets its turn however large another's backlog, at
// most its share; a cooling subscription gets one delivery, and only while
// none of its deliveries is leased anywhere; one application's subscriptions
// together get at most the application's share; attempt outcomes move the
// cooling state in order; the pending count behind the replay limit.
import { randomUUID } from 'node:crypto';
import type { DataStore, LeaseShares, WebhookAttemptResult, WebhookDeliveryRow, WebhookSubscriptionRow } from '@cds/data';
import { anApplication, at, openMigratedStore, T0, type MigratedStore } from '../data/data-fixtures';

let ctx: MigratedStore;

beforeEach(async () => {
  ctx = await openMigratedStore();
});
afterEach(() => ctx.close());

async function aSubscription(store: DataStore, applicationId?: string): Promise<WebhookSubscriptionRow> {
  const appId = applicationId ?? (await anInsertedApplication(store));
  const sub: WebhookSubscriptionRow = {
    id: randomUUID(), applicationId: appId, url: 'https://hooks.example.com/in', events: ['domain.ready'],
    status: 'active', createdAt: T0, updatedAt: T0, revokedAt: null,
  };
  await store.run((r) => r.webhookSubscriptions.insert(sub, { id: randomUUID(), subscriptionId: sub.id, secretSealed: 'sealed', createdAt: T0, expiresAt: null }));
  return sub;
}

async function anInsertedApplication(store: DataStore): Promise<string> {
  const app = anApplication();
  await store.run((r) => r.applications.insert(app));
  return app.id;
}

function deliveries(sub: WebhookSubscriptionRow, count: number, dueAt: (i: number) => Date = () => T0, state: WebhookDeliveryRow['state'] = 'pending'): WebhookDeliveryRow[] {
  return Array.from({ length: count }, (_, i) => ({
    id: randomUUID(), applicationId: sub.applicationId, subscriptionId: sub.id, eventId: randomUUID(), eventType: 'domain.ready',
    payload: '{}', state, attempts: 0, nextAttemptAt: state === 'pending' ? dueAt(i) : null, lastAttemptAt: null, lastStatusCode: null,
    lastError: null, createdAt: T0, deliveredAt: null, replayOf: null, leaseId: null,
  }));
}

const insert = (rows: WebhookDeliveryRow[]) => ctx.store.run((r) => r.webhookDeliveries.insertMany(rows));
const lease = (now: Date, limit: number, shares?: LeaseShares, leaseId = randomUUID()) =>
  ctx.store.run((r) => r.webhookDeliveryQueue.claimDue(now, limit, leaseId, at(60_000), shares));
const shares = (perSubscription: number, held: Record<string, number> = {}): LeaseShares => ({ perSubscription, held: new Map(Object.entries(held)) });
const withApplicationShare = (perSubscription: number, perApplication: number, heldByApplication: Record<string, number> = {}): LeaseShares => ({
  ...shares(perSubscription), perApplication, heldByApplication: new Map(Object.entries(heldByApplication)),
});
/** How many of the leased deliveries each subscription got. */
function countBy(rows: WebhookDeliveryRow[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of rows) counts.set(d.subscriptionId, (counts.get(d.subscriptionId) ?? 0) + 1);
  return counts;
}
const coolingOf = async (sub: WebhookSubscriptionRow) => (await ctx.store.run((r) => r.webhookSubscriptions.coolingStates([sub.id]))).get(sub.id);
const streakOf = async (sub: WebhookSubscriptionRow) => (await coolingOf(sub))?.failureStreak;

function outcome(d: WebhookDeliveryRow, leaseId: string, delivered: boolean, attempt = 1): WebhookAttemptResult {
  return {
    leaseId,
    attempt: { id: randomUUID(), deliveryId: d.id, attempt, startedAt: at(attempt), durationMs: 5, statusCode: delivered ? 200 : 500, error: delivered ? null : 'receiver answered HTTP 500' },
    state: delivered ? 'delivered' : 'pending',
    nextAttemptAt: delivered ? null : at(120_000),
    deliveredAt: delivered ? at(attempt + 5) : null,
  };
}

/** Records these outcomes (true: delivered) of attempts of one delivery of the subscription, in order, in one batch. */
async function attemptsWith(sub: WebhookSubscriptionRow, delivered: boolean[]): Promise<void> {
  const [d] = deliveries(sub, 1, () => at(-1));
  await insert([d as WebhookDeliveryRow]);
  const results = delivered.map((ok, i) => outcome(d as WebhookDeliveryRow, randomUUID(), ok, i + 1));
  await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts(results));
  await ctx.store.run((r) => r.webhookDeliveries.abandonPending(sub.id, 'set up'));
}

/** Sets a subscription's streak by recording `failures` failed attempts of one of its deliveries. */
const failTimes = (sub: WebhookSubscriptionRow, failures: number) => attemptsWith(sub, Array<boolean>(failures).fill(false));

/** `rounds` rounds of 4 failed attempts and a delivered one: a receiver that fails 4 of every 5. */
const fourOfFive = (rounds: number) => Array.from({ length: rounds }, () => [false, false, false, false, true]).flat();

describe('the lease', () => {
  it('gives every due subscription its turn, the longest waiting first, whatever the size of another\'s backlog', async () => {
    const [big, small, late] = [await aSubscription(ctx.store), await aSubscription(ctx.store), await aSubscription(ctx.store)];
    const bigRows = deliveries(big, 500, (i) => at(i));
    await insert([...bigRows, ...deliveries(small, 3, (i) => at(1000 + i)), ...deliveries(late, 1, () => at(2000))]);

    const first = await lease(at(5000), 10, shares(4));
    // A share of at most 4 each, each subscription's earliest due deliveries.
    expect(countBy(first)).toEqual(new Map([[big.id, 4], [small.id, 3], [late.id, 1]]));
    expect(first.filter((d) => d.subscriptionId === big.id).map((d) => d.nextAttemptAt)).toEqual([at(60_000), at(60_000), at(60_000), at(60_000)]);
    expect(new Set(first.filter((d) => d.subscriptionId === big.id).map((d) => d.id))).toEqual(new Set(bigRows.slice(0, 4).map((d) => d.id)));
    // A limit below the shares takes turns: every subscription's first, then seconds, ….
    await insert(deliveries(late, 3, () => at(2500)));
    expect(countBy(await lease(at(5000), 5, shares(8)))).toEqual(new Map([[big.id, 3], [late.id, 2]]));

    // What the caller holds counts against the share.
    expect(await lease(at(5000), 10, shares(4, { [big.id]: 4, [late.id]: 5 }))).toEqual([]);
    expect((await lease(at(5000), 10, shares(4, { [big.id]: 3, [late.id]: 4 }))).map((d) => d.subscriptionId)).toEqual([big.id]);
    // Without shares, the lease takes what is due up to its limit.
    expect(await lease(at(5000), 100)).toHaveLength(100);
  });

  it('serves the subscriptions that waited longest when more are due than the limit', async () => {
    const subs = [];
    for (let i = 0; i < 5; i++) subs.push(await aSubscription(ctx.store));
    await insert(subs.flatMap((sub, i) => deliveries(sub, 2, () => at(100 * (5 - i)))));
    const leased = await lease(at(1000), 3, shares(4));
    expect(new Set(leased.map((d) => d.subscriptionId))).toEqual(new Set([subs[4]?.id, subs[3]?.id, subs[2]?.id]));
  });

  it('leases nothing twice to two stores leasing at once', async () => {
    const subs = [await aSubscription(ctx.store), await aSubscription(ctx.store)];
    await insert(subs.flatMap((sub) => deliveries(sub, 30, (i) => at(i))));
    const other = await ctx.openAnother();
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      (i % 2 ? other : ctx.store).run((r) => r.webhookDeliveryQueue.claimDue(at(1000), 10, randomUUID(), at(60_000), shares(4)))));
    const ids = claims.flat().map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const claim of claims) for (const sub of subs) expect(claim.filter((d) => d.subscriptionId === sub.id).length).toBeLessThanOrEqual(4);
  });

  it('gives a cooling subscription one delivery at a time, across dispatchers', async () => {
    const sub = await aSubscription(ctx.store);
    await failTimes(sub, 5);
    expect(await streakOf(sub)).toBe(5);
    expect(await ctx.store.run((r) => r.webhookSubscriptions.countCooling())).toBe(1);
    const due = deliveries(sub, 6, (i) => at(i));
    await insert(due);

    const [only, ...more] = await lease(at(1000), 10, shares(4));
    expect(more).toEqual([]);
    expect(only?.id).toBe(due[0]?.id);
    // Leased (running somewhere): no other lease gets one, from this store or another.
    expect(await lease(at(1000), 10, shares(4))).toEqual([]);
    const other = await ctx.openAnother();
    expect(await other.run((r) => r.webhookDeliveryQueue.claimDue(at(1000), 10, randomUUID(), at(60_000)))).toEqual([]);

    // Its outcome written, the next one may go; a failure keeps it cooling.
    await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([outcome(only as WebhookDeliveryRow, only?.leaseId as string, false)]));
    expect(await streakOf(sub)).toBe(6);
    const [second, ...none] = await lease(at(1000), 10, shares(4));
    expect(none).toEqual([]);
    expect(second?.id).toBe(due[1]?.id);

    // A lease that ran out (its dispatcher died) no longer holds the turn.
    const [third] = await lease(at(60_000), 10, shares(4));
    expect(third?.subscriptionId).toBe(sub.id);

    // A success ends cooling: the shares are back.
    await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([outcome(third as WebhookDeliveryRow, third?.leaseId as string, true, 2)]));
    expect(await streakOf(sub)).toBe(0);
    expect(await ctx.store.run((r) => r.webhookSubscriptions.countCooling())).toBe(0);
    expect(await lease(at(60_000), 10, shares(4))).toHaveLength(4);
  });

  it("gives one application's subscriptions together at most the application's share, however many of them are due first", async () => {
    const crowded = await anInsertedApplication(ctx.store);
    const crowd = [];
    for (let i = 0; i < 10; i++) crowd.push(await aSubscription(ctx.store, crowded));
    const other = await aSubscription(ctx.store);
    // The crowded application's subscriptions all waited longer than the other's.
    await insert([...crowd.flatMap((sub, i) => deliveries(sub, 10, (j) => at(i * 10 + j))), ...deliveries(other, 3, (j) => at(500 + j))]);
    const byApplication = (rows: WebhookDeliveryRow[]) => rows.filter((d) => d.applicationId === crowded).length;

    const first = await lease(at(1000), 5, withApplicationShare(4, 3));
    expect(byApplication(first)).toBe(3);
    expect(first.filter((d) => d.subscriptionId === other.id)).toHaveLength(2);
    // Each of its three is the earliest of a subscription, the longest waiting first.
    expect(new Set(first.filter((d) => d.applicationId === crowded).map((d) => d.subscriptionId))).toEqual(new Set(crowd.slice(0, 3).map((s) => s.id)));

    // What the caller holds of the application counts against its share.
    const second = await lease(at(1000), 20, withApplicationShare(4, 6, { [crowded]: 4 }));
    expect(byApplication(second)).toBe(2);
    expect(second.filter((d) => d.subscriptionId === other.id)).toHaveLength(1);
    expect(byApplication(await lease(at(1000), 20, withApplicationShare(4, 6, { [crowded]: 6 })))).toBe(0);
    // Without an application share, only the subscriptions' shares apply.
    expect(byApplication(await lease(at(1000), 100, shares(4)))).toBe(40);
  });

  it('gives a subscription that fails 4 of every 5 attempts one delivery at a time once 16 of its last 20 failed', async () => {
    const sub = await aSubscription(ctx.store);
    await attemptsWith(sub, fourOfFive(3));
    // 12 of the last 15 failed, never 5 in a row: not cooling.
    expect(await coolingOf(sub)).toEqual({ failureStreak: 0, recentOutcomes: 'ffffsffffsffffs' });
    expect(await ctx.store.run((r) => r.webhookSubscriptions.countCooling())).toBe(0);
    await attemptsWith(sub, fourOfFive(1));
    expect(await coolingOf(sub)).toEqual({ failureStreak: 0, recentOutcomes: 'ffffsffffsffffsffffs' });
    expect(await ctx.store.run((r) => r.webhookSubscriptions.countCooling())).toBe(1);
    await insert(deliveries(sub, 6, (i) => at(i)));
    expect(await lease(at(1000), 10, shares(4))).toHaveLength(1);

    // Another success: 15 of the last 20 failed, it no longer cools.
    await attemptsWith(sub, [true]);
    expect(await coolingOf(sub)).toEqual({ failureStreak: 0, recentOutcomes: 'fffsffffsffffsffffss' });
    expect(await ctx.store.run((r) => r.webhookSubscriptions.countCooling())).toBe(0);
    await insert(deliveries(sub, 6, (i) => at(i)));
    expect(await lease(at(1000), 10, shares(4))).toHaveLength(4);
  });

  it('ends cooling at the first success after 5 failures in a row, the failures of that streak no longer counted', async () => {
    const sub = await aSubscription(ctx.store);
    await attemptsWith(sub, [...fourOfFive(3), false, false, false, false, false]);
    expect(await coolingOf(sub)).toEqual({ failureStreak: 5, recentOutcomes: 'ffffsffffsffffsfffff' });
    expect(await ctx.store.run((r) => r.webhookSubscriptions.countCooling())).toBe(1);
    await attemptsWith(sub, [true]);
    expect(await coolingOf(sub)).toEqual({ failureStreak: 0, recentOutcomes: 'ffffsffffsffffss' });
    expect(await ctx.store.run((r) => r.webhookSubscriptions.countCooling())).toBe(0);
  });

  it('gives two stores leasing at once one turn of a cooling subscription', async () => {
    const sub = await aSubscription(ctx.store);
    await failTimes(sub, 7);
    await insert(deliveries(sub, 20, (i) => at(i)));
    const other = await ctx.openAnother();
    const claims = await Promise.all(Array.from({ length: 6 }, (_, i) =>
      (i % 2 ? other : ctx.store).run((r) => r.webhookDeliveryQueue.claimDue(at(1000), 10, randomUUID(), at(60_000), shares(4)))));
    expect(claims.flat()).toHaveLength(1);
  });
});

describe('attempt outcomes', () => {
  it('move the cooling state in order: a success ends the streak, failures after it count', async () => {
    const sub = await aSubscription(ctx.store);
    const rows = deliveries(sub, 6);
    await insert(rows);
    const leaseId = randomUUID();
    await lease(T0, 10, undefined, leaseId);
    const [a, b, c, d, e, f] = rows as [WebhookDeliveryRow, WebhookDeliveryRow, WebhookDeliveryRow, WebhookDeliveryRow, WebhookDeliveryRow, WebhookDeliveryRow];
    await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([outcome(a, leaseId, false), outcome(b, leaseId, false)]));
    expect(await streakOf(sub)).toBe(2);
    await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([outcome(c, leaseId, false), outcome(d, leaseId, true), outcome(e, leaseId, false)]));
    expect(await streakOf(sub)).toBe(1);
    // An outcome whose lease ran out still counts: the receiver saw the attempt.
    await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([outcome(f, randomUUID(), false)]));
    expect(await streakOf(sub)).toBe(2);
  });

  it('move the streaks of several subscriptions in one batch', async () => {
    const [s1, s2, s3] = [await aSubscription(ctx.store), await aSubscription(ctx.store), await aSubscription(ctx.store)];
    await failTimes(s3, 3);
    const rows = [...deliveries(s1, 3), ...deliveries(s2, 2), ...deliveries(s3, 1)];
    await insert(rows);
    const leaseId = randomUUID();
    await lease(T0, 10, undefined, leaseId);
    const outcomes = rows.map((d, i) => outcome(d, leaseId, d.subscriptionId === s2.id && i === 4));
    await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts(outcomes));
    expect(await ctx.store.run((r) => r.webhookSubscriptions.coolingStates([s1.id, s2.id, s3.id]))).toEqual(new Map([
      [s1.id, { failureStreak: 3, recentOutcomes: 'fff' }], [s2.id, { failureStreak: 0, recentOutcomes: 'fs' }], [s3.id, { failureStreak: 4, recentOutcomes: 'ffff' }],
    ]));
    expect(await ctx.store.run((r) => r.webhookSubscriptions.coolingStates([]))).toEqual(new Map());
  });
});

describe('pending count', () => {
  it('counts an application\'s pending deliveries over all its subscriptions, and nothing else', async () => {
    const appId = await anInsertedApplication(ctx.store);
    const [s1, s2, other] = [await aSubscription(ctx.store, appId), await aSubscription(ctx.store, appId), await aSubscription(ctx.store)];
    await insert([...deliveries(s1, 3), ...deliveries(s2, 2), ...deliveries(s1, 4, undefined, 'delivered'), ...deliveries(other, 5)]);
    expect(await ctx.store.run((r) => r.webhookDeliveries.countPending(appId))).toBe(5);
    expect(await ctx.store.run((r) => r.webhookDeliveries.countPending(randomUUID()))).toBe(0);
  });
});
