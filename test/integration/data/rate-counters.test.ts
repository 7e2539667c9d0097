import type { DataStore } from '@cds/data';
import { openMigratedStore, type MigratedStore } from './data-fixtures';

// 60-second windows: [12:00:00, 12:01:00) and so on.
const W0 = Date.parse('2025-03-04T12:00:00.000Z');
const t = (ms: number) => new Date(W0 + ms);

describe('rate counters repository', () => {
  let ctx: MigratedStore;

  beforeAll(async () => {
    ctx = await openMigratedStore();
  });
  afterAll(() => ctx.close());

  it('counts hits in a fixed window and starts again in the next one', async () => {
    const hit = (ms: number) => ctx.store.run((r) => r.rateCounters.hit('k1', 60, t(ms)));
    expect(await hit(5)).toEqual({ count: 1, resetAt: t(60_000) });
    expect(await hit(30_000)).toEqual({ count: 2, resetAt: t(60_000) });
    expect(await hit(59_999)).toEqual({ count: 3, resetAt: t(60_000) });
    expect(await hit(60_000)).toEqual({ count: 1, resetAt: t(120_000) });
    // A late hit from the previous window counts in the current one and does not move it back.
    expect(await hit(59_000)).toEqual({ count: 2, resetAt: t(120_000) });
    expect(await hit(61_000)).toEqual({ count: 3, resetAt: t(120_000) });
  });

  it('adds a batch of hits at once and refuses a batch that is not a positive integer', async () => {
    const hit = (ms: number, amount: number) => ctx.store.run((r) => r.rateCounters.hit('k-batch', 60, t(ms), { amount }));
    expect(await hit(1, 10)).toEqual({ count: 10, resetAt: t(60_000) });
    expect(await hit(2, 5)).toEqual({ count: 15, resetAt: t(60_000) });
    expect(await ctx.store.run((r) => r.rateCounters.hit('k-batch', 60, t(3)))).toEqual({ count: 16, resetAt: t(60_000) });
    expect(await hit(60_001, 7)).toEqual({ count: 7, resetAt: t(120_000) });
    await expect(hit(60_002, 0)).rejects.toThrow(RangeError);
    await expect(hit(60_002, 1.5)).rejects.toThrow(RangeError);
  });

  it('peeks without counting', async () => {
    const peek = (ms: number) => ctx.store.run((r) => r.rateCounters.peek('k2', 60, t(ms)));
    expect(await peek(0)).toEqual({ count: 0, resetAt: t(60_000) });
    await ctx.store.run((r) => r.rateCounters.hit('k2', 60, t(1)));
    await ctx.store.run((r) => r.rateCounters.hit('k2', 60, t(2)));
    expect(await peek(3)).toEqual({ count: 2, resetAt: t(60_000) });
    expect(await peek(4)).toEqual({ count: 2, resetAt: t(60_000) });
    expect(await peek(60_000)).toEqual({ count: 0, resetAt: t(120_000) });
  });

  it('keeps windows of other lengths and keys apart', async () => {
    expect(await ctx.store.run((r) => r.rateCounters.hit('k3', 1, t(1_500)))).toEqual({ count: 1, resetAt: t(2_000) });
    expect(await ctx.store.run((r) => r.rateCounters.hit('k3', 1, t(1_999)))).toEqual({ count: 2, resetAt: t(2_000) });
    expect(await ctx.store.run((r) => r.rateCounters.hit('k4', 3600, t(1_999)))).toEqual({ count: 1, resetAt: t(3_600_000) });
    await expect(ctx.store.run((r) => r.rateCounters.hit('k5', 0, t(0)))).rejects.toThrow(RangeError);
  });

  it('gives 100 concurrent hits from several stores the counts 1..100 once each', async () => {
    const stores: DataStore[] = [ctx.store, await ctx.openAnother(), await ctx.openAnother(), await ctx.openAnother()];
    const counts = await Promise.all(
      Array.from({ length: 100 }, (_, i) => stores[i % stores.length]!.run((r) => r.rateCounters.hit('busy', 60, t(10 + (i % 7))))),
    );
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(new Set(counts.map((c) => c.resetAt.getTime()))).toEqual(new Set([t(60_000).getTime()]));
  });

  it('anchors a window at its first hit when asked, so a limit per 60 s holds across a minute boundary', async () => {
    const hit = (ms: number) => ctx.store.run((r) => r.rateCounters.hit('anchored', 60, t(ms), { anchored: true }));
    expect(await hit(59_900)).toEqual({ count: 1, resetAt: t(119_900) });
    // A clock-aligned window would start again at t(60_000); the anchored one still counts.
    expect(await hit(60_100)).toEqual({ count: 2, resetAt: t(119_900) });
    expect(await hit(119_899)).toEqual({ count: 3, resetAt: t(119_900) });
    expect(await hit(119_900)).toEqual({ count: 1, resetAt: t(179_900) });
  });
});
