// Housekeeping on the real data store (DECISIONS §9): for every table, rows
// past retention are deleted and rows inside it stay; pending deliveries and
// set-aside outbox rows are never deleted; every statement deletes at most
// 1,000 rows. Retention is measured on the database's clock: rows are seeded
// at times before it, and the runner's own clock only decides when a run is due.
import { randomUUID } from 'node:crypto';
import { HOUSEKEEPING_BATCH_ROWS, HOUSEKEEPING_TABLES, retentionCutoffs } from '@cds/core';
import { housekeepingMetrics, meteredHousekeeping } from '@cds/metrics';
import { anApplication, openMigratedStore, type MigratedStore } from '../data/data-fixtures';
import {
  aDelivery, aDomainWithEverything, anOutboxRow, aSubscription, countRows, DAY, ManualClock, MINUTE, runnerOn, SETTINGS, someDeliveries, someOutboxRows,
} from './housekeeping-fixtures';

/** The database's time as a test starts (the same machine's clock); the runs follow within seconds. */
let NOW = new Date();
const ago = (ms: number) => new Date(NOW.getTime() - ms);

describe('housekeeping retention', () => {
  let ctx: MigratedStore;

  beforeEach(async () => {
    ctx = await openMigratedStore();
    NOW = new Date();
  });
  afterEach(() => ctx.close());

  const runAt = async (at: Date) => {
    const { runner, statements } = runnerOn(ctx.store, () => at);
    const report = await runner.runOnce();
    expect(report.outcome).toBe('success');
    return { report, statements };
  };

  it('deletes published outbox rows published longer ago than OUTBOX_RETENTION, never unpublished or set-aside ones', async () => {
    const old = await anOutboxRow(ctx.store, ago(7 * DAY + 1));
    const recent = await anOutboxRow(ctx.store, ago(7 * DAY - MINUTE));
    const unpublished = await anOutboxRow(ctx.store, null);
    const aside = await anOutboxRow(ctx.store, null);
    await ctx.store.run((r) => r.outbox.setAside([aside], 'refused by the catalog', ago(60 * DAY)));
    // Set aside and then marked published: still kept.
    const asidePublished = await anOutboxRow(ctx.store, null);
    await ctx.store.run((r) => r.outbox.setAside([asidePublished], 'refused by the catalog', ago(60 * DAY)));
    await ctx.store.run((r) => r.outbox.markPublished([asidePublished], ago(60 * DAY)));

    const { report } = await runAt(NOW);

    expect(report.deleted.outbox).toBe(1);
    const left = (await ctx.store.run((r) => r.outbox.all())).map((row) => row.id);
    expect(left).toEqual([recent, unpublished, aside, asidePublished]);
    expect(left).not.toContain(old);
  });

  it('deletes delivered and abandoned deliveries created longer ago than WEBHOOK_DELIVERY_RETENTION with their attempts, never pending ones', async () => {
    const sub = await aSubscription(ctx.store);
    const oldDelivered = await aDelivery(ctx.store, sub, 'delivered', ago(30 * DAY + 1));
    const oldAbandoned = await aDelivery(ctx.store, sub, 'abandoned', ago(31 * DAY));
    const oldPending = await aDelivery(ctx.store, sub, 'pending', ago(365 * DAY));
    const recentDelivered = await aDelivery(ctx.store, sub, 'delivered', ago(30 * DAY - MINUTE));
    const recentAbandoned = await aDelivery(ctx.store, sub, 'abandoned', ago(DAY));
    const attemptsOf = (id: string) => ctx.store.run((r) => r.webhookDeliveries.attemptsOf(id));
    expect(await countRows(ctx.db, 'webhook_attempts')).toBe(5);

    const { report } = await runAt(NOW);

    expect(report.deleted).toMatchObject({ webhook_deliveries: 2, webhook_attempts: 2 });
    const find = (id: string) => ctx.store.run((r) => r.webhookDeliveries.find(sub.applicationId, sub.id, id));
    expect(await find(oldDelivered)).toBeNull();
    expect(await find(oldAbandoned)).toBeNull();
    expect(await attemptsOf(oldDelivered)).toEqual([]);
    expect(await attemptsOf(oldAbandoned)).toEqual([]);
    for (const kept of [oldPending, recentDelivered, recentAbandoned]) {
      expect(await find(kept)).toMatchObject({ id: kept });
      expect(await attemptsOf(kept)).toHaveLength(1);
    }
    expect(await countRows(ctx.db, 'webhook_attempts')).toBe(3);
  });

  it('keeps a finished delivery that a kept replay names, and deletes it once its replays are gone', async () => {
    const sub = await aSubscription(ctx.store);
    // A replay inside retention keeps its old original (its replay_of stays valid).
    const original = await aDelivery(ctx.store, sub, 'delivered', ago(60 * DAY));
    const replay = await aDelivery(ctx.store, sub, 'delivered', ago(DAY), original);
    // A chain past retention goes from the last replay back: one link per run.
    const first = await aDelivery(ctx.store, sub, 'abandoned', ago(50 * DAY));
    const second = await aDelivery(ctx.store, sub, 'abandoned', ago(45 * DAY), first);
    await aDelivery(ctx.store, sub, 'delivered', ago(40 * DAY), second);
    // Once the replay is past retention too, both go: the replay first, its original at the next run.
    const pastOriginal = await aDelivery(ctx.store, sub, 'delivered', ago(90 * DAY));
    await aDelivery(ctx.store, sub, 'abandoned', ago(31 * DAY), pastOriginal);
    const ids = async () => (await ctx.store.run((r) => r.webhookDeliveries.list(sub.applicationId, sub.id, { limit: 100, offset: 0 }))).map((d) => d.id).sort();

    // The runner's clock moves an interval per run only so that each run is due.
    await runAt(NOW);
    expect(await ids()).toEqual([original, replay, first, second, pastOriginal].sort());
    await runAt(new Date(NOW.getTime() + SETTINGS.housekeepingInterval));
    expect(await ids()).toEqual([original, replay, first].sort());
    await runAt(new Date(NOW.getTime() + 2 * SETTINGS.housekeepingInterval));
    expect(await ids()).toEqual([original, replay].sort());
    expect(await countRows(ctx.db, 'webhook_attempts')).toBe(2);
  });

  it('deletes domains deleted longer ago than DELETED_DOMAIN_RETENTION with their checks, recent check runs, certificates and challenges', async () => {
    const app = anApplication();
    await ctx.store.run((r) => r.applications.insert(app));
    const old = await aDomainWithEverything(ctx, app.id, ago(30 * DAY + 1));
    const recent = await aDomainWithEverything(ctx, app.id, ago(30 * DAY - MINUTE));
    const live = await aDomainWithEverything(ctx, app.id, null);
    // A hostname deleted long ago and registered again: the live domain's certificate and challenge stay.
    const reusedName = `reused-${randomUUID().slice(0, 8)}.example.net`;
    const oldHolder = await aDomainWithEverything(ctx, app.id, ago(40 * DAY), reusedName);
    const newHolder = await aDomainWithEverything(ctx, app.id, null, reusedName);

    const { report } = await runAt(NOW);

    expect(report.deleted).toMatchObject({ domains: 2, domain_checks: 8, domain_check_runs: 4, certificates: 1, acme_challenges: 1 });
    const find = (id: string) => ctx.store.run((r) => r.domains.find(app.id, id, true));
    expect(await find(old.id)).toBeNull();
    expect(await find(oldHolder.id)).toBeNull();
    expect(await ctx.store.run((r) => r.domains.checksOf([old.id, oldHolder.id]))).toEqual([]);
    for (const gone of [old, oldHolder]) expect(await ctx.store.run((r) => r.domainLookup.recentRuns(gone.id))).toEqual([]);
    expect(await ctx.store.run((r) => r.certificates.find(old.hostname))).toBeNull();
    expect(await ctx.store.run((r) => r.acmeChallenges.find(old.token))).toBeNull();

    for (const kept of [recent, live, newHolder]) {
      expect(await find(kept.id)).toMatchObject({ id: kept.id });
      expect(await ctx.store.run((r) => r.domains.checksOf([kept.id]))).toHaveLength(4);
      expect((await ctx.store.run((r) => r.domainLookup.recentRuns(kept.id))).map((run) => run.trigger)).toEqual(['schedule', 'created']);
      expect(await ctx.store.run((r) => r.certificates.find(kept.hostname))).toMatchObject({ domainId: kept.id });
      expect(await ctx.store.run((r) => r.acmeChallenges.find(kept.token))).toMatchObject({ hostname: kept.hostname });
    }
    // The old holder's challenge under the reused name goes with the others only when no live domain holds that name.
    expect(await ctx.store.run((r) => r.acmeChallenges.find(oldHolder.token))).toMatchObject({ hostname: reusedName });
    expect(await countRows(ctx.db, 'domains')).toBe(3);
    expect(await countRows(ctx.db, 'domain_checks')).toBe(12);
    expect(await countRows(ctx.db, 'domain_check_runs')).toBe(6);
  });

  it('deletes expired idempotency keys, ended rate-counter windows and traffic days older than 400 days', async () => {
    const app = anApplication();
    await ctx.store.run((r) => r.applications.insert(app));
    const key = (name: string, expiresAt: Date) => ({
      applicationId: app.id, key: name, requestHash: 'h', state: 'completed' as const, responseStatus: 201, responseBody: '{}',
      createdAt: new Date(expiresAt.getTime() - DAY), expiresAt,
    });
    for (const [name, expiresAt] of [['expired', ago(1)], ['expiring-now', NOW], ['live', new Date(NOW.getTime() + MINUTE)]] as const) {
      expect(await ctx.store.run((r) => r.idempotency.tryInsert(key(name, expiresAt)))).toBe(true);
    }
    await ctx.store.run((r) => r.rateCounters.hit('ended', 60, ago(2 * MINUTE)));
    await ctx.store.run((r) => r.rateCounters.hit('ends-now', 60, ago(60_000), { anchored: true }));
    await ctx.store.run((r) => r.rateCounters.hit('current', 600, NOW, { anchored: true }));
    await ctx.store.run((r) => r.rateCounters.hit('anchored-open', 3600, ago(MINUTE), { anchored: true }));
    const firstKept = retentionCutoffs(NOW, SETTINGS).firstTrafficDayKept;
    const dayBefore = new Date(Date.parse(`${firstKept}T00:00:00.000Z`) - DAY).toISOString().slice(0, 10);
    const today = NOW.toISOString().slice(0, 10);
    for (const day of ['2020-01-01', dayBefore, firstKept, today]) await ctx.store.run((r) => r.traffic.addTraffic(app.id, day, 10, 1000));

    const { report } = await runAt(NOW);

    expect(report.deleted).toMatchObject({ idempotency_keys: 2, rate_counters: 2, traffic_daily: 2 });
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'expired'))).toBeNull();
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'expiring-now'))).toBeNull();
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'live'))).toMatchObject({ key: 'live' });
    expect(await countRows(ctx.db, 'rate_counters', "\"key\" IN ('current', 'anchored-open')")).toBe(2);
    expect(await countRows(ctx.db, 'rate_counters')).toBe(2);
    const days = await ctx.store.run((r) => r.traffic.range(app.id, '2000-01-01', '2100-01-01'));
    expect(days.map((d) => d.day)).toEqual([firstKept, today]);
  });

  it("measures retention on the database's clock: a runner whose clock is a year off deletes exactly what the database time says", async () => {
    await anOutboxRow(ctx.store, ago(7 * DAY + MINUTE));
    const recent = await anOutboxRow(ctx.store, ago(7 * DAY - 10 * MINUTE));
    await ctx.store.run((r) => r.rateCounters.hit('ended', 60, ago(10 * MINUTE), { anchored: true }));
    await ctx.store.run((r) => r.rateCounters.hit('open', 3600, NOW, { anchored: true }));

    // A runner a year behind: by its own clock nothing would be old enough.
    const behind = await runAt(new Date(NOW.getTime() - 365 * DAY));
    expect(behind.report.deleted).toMatchObject({ outbox: 1, rate_counters: 1 });
    expect((await ctx.store.run((r) => r.outbox.all())).map((row) => row.id)).toEqual([recent]);
    expect(await countRows(ctx.db, 'rate_counters', "\"key\" = 'open'")).toBe(1);

    // A runner a year ahead: by its own clock everything would be; the rows inside retention stay.
    const ahead = await runAt(new Date(NOW.getTime() + 365 * DAY));
    expect(ahead.report.deleted).toMatchObject({ outbox: 0, rate_counters: 0 });
    expect((await ctx.store.run((r) => r.outbox.all())).map((row) => row.id)).toEqual([recent]);
    expect(await countRows(ctx.db, 'rate_counters')).toBe(1);
  });

  it('deletes in statements of at most 1,000 rows: 2,500 rows in 3 statements', async () => {
    await ctx.store.transaction(async (r) => {
      for (let i = 0; i < 2500; i += 1) await r.rateCounters.hit(`bulk-${i}`, 60, ago(DAY));
    });
    const onRun = meteredHousekeeping(SETTINGS.housekeepingInterval);
    const counted = async () => (await housekeepingMetrics().deleted.get()).values.find((v) => v.labels.table === 'rate_counters')?.value;
    const before = await counted();
    const { runner, statements } = runnerOn(ctx.store, () => NOW, { onRun });

    const report = await runner.runOnce();

    expect(report.outcome).toBe('success');
    expect(statements.filter((s) => s.table === 'rate_counters').map((s) => s.deleted)).toEqual([1000, 1000, 500]);
    expect(Math.max(...statements.map((s) => s.deleted))).toBeLessThanOrEqual(HOUSEKEEPING_BATCH_ROWS);
    // Every other table took one statement that found nothing.
    expect(statements.filter((s) => s.table !== 'rate_counters').map((s) => s.deleted)).toEqual(Array(HOUSEKEEPING_TABLES.length - 1).fill(0));
    expect(await countRows(ctx.db, 'rate_counters')).toBe(0);
    expect((await counted()) ?? 0).toBe((before ?? 0) + 2500);
    const lastSuccess = (await housekeepingMetrics().lastSuccess.get()).values[0]?.value;
    expect(lastSuccess).toBe(NOW.getTime() / 1000);
  });

  it('deletes a backlog of every kind in batches, 1,000 rows at a time at most', async () => {
    const sub = await aSubscription(ctx.store);
    const clock = new ManualClock(NOW.getTime());
    await someOutboxRows(ctx.store, 1200, ago(30 * DAY));
    await someDeliveries(ctx.store, sub, 600, 'delivered', ago(60 * DAY));
    await someDeliveries(ctx.store, sub, 405, 'abandoned', ago(60 * DAY));
    const { runner, statements } = runnerOn(ctx.store, clock.now);

    expect((await runner.runOnce()).deleted).toMatchObject({ outbox: 1200, webhook_deliveries: 1005, webhook_attempts: 1005 });
    const per = (table: string) => statements.filter((s) => s.table === table).map((s) => s.deleted);
    expect(per('outbox')).toEqual([1000, 200]);
    expect(per('webhook_attempts')).toEqual([1000, 5]);
    expect(per('webhook_deliveries')).toEqual([1000, 5]);
    expect(await countRows(ctx.db, 'outbox')).toBe(0);
    expect(await countRows(ctx.db, 'webhook_deliveries')).toBe(0);
  });
});
