// One housekeeping runner at a time across processes (DECISIONS §9): runners
// on separate connections to one database share a lease row. Proved with the
// runners' own instrumentation (a statement hook that can hold a run in the
// middle, and timed statements), never with sleeps.
import { HOUSEKEEPING_LEASE_MS, HOUSEKEEPING_TABLES, leaseText, parseLease } from '@cds/core';
import { HOUSEKEEPING_LEASE_KEY, type DataStore, type HousekeepingReport } from '@cds/data';
import { startHousekeeping, type PruneStatementEvent } from '@cds/lifecycle';
import { openMigratedStore, type MigratedStore } from '../data/data-fixtures';
import { countRows, DAY, ManualClock, MINUTE, runnerOn, SETTINGS } from './housekeeping-fixtures';

const NOW = new Date('2026-06-01T12:00:00.000Z');

describe('housekeeping runners', () => {
  let ctx: MigratedStore;

  beforeEach(async () => {
    ctx = await openMigratedStore();
  });
  afterEach(() => ctx.close());

  /** `count` rate counters whose window ended a day before `at`: work for several statements. */
  const endedCounters = (count: number, at: Date, prefix = 'ended') =>
    ctx.store.transaction(async (r) => {
      for (let i = 0; i < count; i += 1) await r.rateCounters.hit(`${prefix}-${i}`, 60, new Date(at.getTime() - DAY));
    });
  const storedLease = async () => parseLease((await ctx.store.run((r) => r.settings.get(HOUSEKEEPING_LEASE_KEY))) ?? '');
  const overlapping = (a: PruneStatementEvent[], b: PruneStatementEvent[]) =>
    a.flatMap((x) => b.filter((y) => x.startedAt < y.endedAt && y.startedAt < x.endedAt).map((y) => [x, y]));

  it('two runners started together: one runs the pass, the other finds the lease held while it runs', async () => {
    const other = await ctx.openAnother();
    await endedCounters(300, NOW);
    // Each runner waits inside its pass (after its first statement) until both are in, or until released.
    const inside = new Set<string>();
    let release!: () => void;
    let entered!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const someoneInside = new Promise<void>((resolve) => (entered = resolve));
    const hold = (name: string) => async () => {
      inside.add(name);
      entered();
      if (inside.size === 2) release();
      await gate;
    };
    const a = runnerOn(ctx.store, () => NOW, { holder: 'a', onStatement: hold('a') });
    const b = runnerOn(other, () => NOW, { holder: 'b', onStatement: hold('b') });
    const runs = [a.runner.runOnce(), b.runner.runOnce()];

    // The runner that lost ends while the winner holds the lease; the winner is then held in its pass.
    const first = await Promise.race(runs);
    expect(first.outcome).toBe('busy');
    await someoneInside;
    expect(inside.size).toBe(1);
    const [winner] = [...inside];
    expect(await storedLease()).toMatchObject({ holder: winner, until: new Date(NOW.getTime() + HOUSEKEEPING_LEASE_MS) });
    release();

    const reports = await Promise.all(runs);
    expect(reports.map((r) => r.outcome).sort()).toEqual(['busy', 'success']);
    expect(reports.find((r) => r.outcome === 'success')?.deleted.rate_counters).toBe(300);
    expect((winner === 'a' ? b : a).statements).toEqual([]);
    expect(await storedLease()).toEqual({ holder: null, until: null, lastRunAt: NOW, lastSuccessAt: NOW });
    expect(await countRows(ctx.db, 'rate_counters')).toBe(0);
  });

  it('two runners started together round after round: exactly one runs each round, and their statements never overlap in time', async () => {
    const other = await ctx.openAnother();
    const clock = new ManualClock(NOW.getTime());
    const a = runnerOn(ctx.store, clock.now, { holder: 'a' });
    const b = runnerOn(other, clock.now, { holder: 'b' });
    const rounds: HousekeepingReport[][] = [];
    for (let round = 0; round < 6; round += 1) {
      await endedCounters(300, clock.now(), `round-${round}`);
      // Started in turn order, so that either may win.
      const pair = round % 2 ? [b.runner.runOnce(), a.runner.runOnce()] : [a.runner.runOnce(), b.runner.runOnce()];
      rounds.push(await Promise.all(pair));
      clock.advance(SETTINGS.housekeepingInterval);
    }

    for (const reports of rounds) {
      expect(reports.filter((r) => r.outcome === 'success')).toHaveLength(1);
      // The other found the lease held, or the round's run already recorded.
      expect(reports.filter((r) => r.outcome === 'busy' || r.outcome === 'not_due')).toHaveLength(1);
    }
    expect(overlapping(a.statements, b.statements)).toEqual([]);
    const deleted = [...a.statements, ...b.statements].filter((s) => s.table === 'rate_counters').reduce((sum, s) => sum + s.deleted, 0);
    expect(deleted).toBe(6 * 300);
  });

  it("takes a crashed holder's lease over once it lapses, not before", async () => {
    const crashed = { holder: 'crashed-runner', until: new Date(NOW.getTime() + HOUSEKEEPING_LEASE_MS), lastRunAt: new Date(NOW.getTime() - DAY), lastSuccessAt: new Date(NOW.getTime() - DAY) };
    await ctx.store.run((r) => r.settings.set(HOUSEKEEPING_LEASE_KEY, leaseText(crashed)));
    await endedCounters(10, NOW);
    const clock = new ManualClock(NOW.getTime());
    const { runner } = runnerOn(ctx.store, clock.now);

    expect(await runner.runOnce()).toMatchObject({ outcome: 'busy', lastSuccessAt: crashed.lastSuccessAt });
    clock.advance(HOUSEKEEPING_LEASE_MS - 1);
    expect((await runner.runOnce()).outcome).toBe('busy');
    const takenAt = clock.advance(1);
    expect(await runner.runOnce()).toMatchObject({ outcome: 'success', lastSuccessAt: takenAt });
    expect(await storedLease()).toEqual({ holder: null, until: null, lastRunAt: takenAt, lastSuccessAt: takenAt });
    expect(await countRows(ctx.db, 'rate_counters')).toBe(0);
  });

  it('does not repeat within the interval a run that another replica finished, and reports when it finished', async () => {
    const other = await ctx.openAnother();
    const clock = new ManualClock(NOW.getTime());
    const a = runnerOn(ctx.store, clock.now);
    const b = runnerOn(other, clock.now);

    expect(await a.runner.runOnce()).toMatchObject({ outcome: 'success', lastSuccessAt: NOW });
    clock.advance(5 * MINUTE);
    expect(await b.runner.runOnce()).toMatchObject({ outcome: 'not_due', lastSuccessAt: NOW });
    const due = clock.advance(5 * MINUTE);
    expect(await b.runner.runOnce()).toMatchObject({ outcome: 'success', lastSuccessAt: due });
  });

  it('keeps the lease while a long run goes on, renewing it', async () => {
    const other = await ctx.openAnother();
    const clock = new ManualClock(NOW.getTime());
    const seen: HousekeepingReport[] = [];
    const b = runnerOn(other, clock.now);
    // Each statement "takes" two minutes: the run's statements (one per table) outlast the five-minute lease four times over.
    const a = runnerOn(ctx.store, clock.now, {
      onStatement: async () => {
        clock.advance(2 * MINUTE);
        seen.push(await b.runner.runOnce());
      },
    });

    expect((await a.runner.runOnce()).outcome).toBe('success');
    expect(a.statements).toHaveLength(HOUSEKEEPING_TABLES.length);
    expect(seen.map((r) => r.outcome)).toEqual(Array(HOUSEKEEPING_TABLES.length).fill('busy'));
    expect(b.statements).toEqual([]);
  });

  it('ends a run whose lease lapsed and was taken over, leaving the new holder alone', async () => {
    const other = await ctx.openAnother();
    await endedCounters(1500, NOW);
    const clock = new ManualClock(NOW.getTime());
    const b = runnerOn(other, clock.now, { holder: 'b' });
    let taken: HousekeepingReport | undefined;
    // A freezes after its first rate-counter batch for longer than its lease; meanwhile B takes over and runs.
    const a = runnerOn(ctx.store, clock.now, {
      holder: 'a',
      onStatement: async (event) => {
        if (event.table !== 'rate_counters' || taken) return;
        clock.advance(HOUSEKEEPING_LEASE_MS);
        taken = await b.runner.runOnce();
      },
    });

    const report = await a.runner.runOnce();

    expect(taken).toMatchObject({ outcome: 'success', deleted: expect.objectContaining({ rate_counters: 500 }) });
    expect(report).toMatchObject({ outcome: 'failure', deleted: expect.objectContaining({ rate_counters: 1000 }) });
    expect(a.statements.filter((s) => s.table === 'rate_counters')).toHaveLength(1);
    const takenAt = new Date(NOW.getTime() + HOUSEKEEPING_LEASE_MS);
    expect(await storedLease()).toEqual({ holder: null, until: null, lastRunAt: takenAt, lastSuccessAt: takenAt });
  });

  it('goes on with the other tables when one fails, and runs again at the next tick', async () => {
    await endedCounters(10, NOW);
    const failing: DataStore = Object.assign(Object.create(ctx.store) as DataStore, {
      run: <T>(fn: Parameters<DataStore['run']>[0]) =>
        ctx.store.run((r) =>
          fn({
            ...r,
            housekeeping: {
              databaseTime: () => r.housekeeping.databaseTime(),
              prune: (table, cutoffs) => (table === 'outbox' ? Promise.reject(new Error('outbox is locked')) : r.housekeeping.prune(table, cutoffs)),
            },
          }),
        ) as Promise<T>,
    });
    const broken = runnerOn(failing, () => NOW);

    expect(await broken.runner.runOnce()).toMatchObject({ outcome: 'failure', deleted: expect.objectContaining({ rate_counters: 10 }) });
    // Nothing recorded as run: the next tick, from any runner, runs at once.
    expect(await storedLease()).toEqual({ holder: null, until: null, lastRunAt: null, lastSuccessAt: null });
    expect((await runnerOn(ctx.store, () => NOW).runner.runOnce()).outcome).toBe('success');
  });

  it('stops after the current statement on shutdown and gives the lease back unrecorded', async () => {
    await endedCounters(10, NOW);
    let stopped: Promise<void> | undefined;
    const holder = runnerOn(ctx.store, () => NOW, { onStatement: () => void (stopped ??= holder.runner.stop()) });

    expect((await holder.runner.runOnce()).outcome).toBe('stopped');
    await stopped;
    expect(holder.statements).toHaveLength(1);
    expect(await countRows(ctx.db, 'rate_counters')).toBe(10);
    expect(await storedLease()).toEqual({ holder: null, until: null, lastRunAt: null, lastSuccessAt: null });
    // A stopped runner touches nothing; another one runs at once.
    expect((await holder.runner.runOnce()).outcome).toBe('stopped');
    expect((await runnerOn(ctx.store, () => NOW).runner.runOnce()).outcome).toBe('success');
  });

  it('runs at start when scheduled, and stop waits for it', async () => {
    await endedCounters(10, new Date());
    let first!: (report: HousekeepingReport) => void;
    const ran = new Promise<HousekeepingReport>((resolve) => (first = resolve));
    const scheduled = startHousekeeping({ store: ctx.store, settings: SETTINGS, onRun: (report) => first(report) });
    try {
      expect(await ran).toMatchObject({ outcome: 'success', deleted: expect.objectContaining({ rate_counters: 10 }) });
    } finally {
      await scheduled.stop();
    }
    expect((await scheduled.runOnce()).outcome).toBe('stopped');
  });
});
