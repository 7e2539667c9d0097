// countAttempt, the failure throttles' one step (DECISIONS §4): a failure adds 1,
// a success adds nothing, each returns the failures counted before it, and
// concurrent attempts from several stores take one order without gaps.
import type { DataStore } from '@cds/data';
import { openMigratedStore, type MigratedStore } from './data-fixtures';

// 60-second windows: [12:00:00, 12:01:00) and so on.
const W0 = Date.parse('2025-03-04T12:00:00.000Z');
const t = (ms: number) => new Date(W0 + ms);

describe('rate counters: authentication attempts', () => {
  let ctx: MigratedStore;

  beforeAll(async () => {
    ctx = await openMigratedStore();
  });
  afterAll(() => ctx.close());

  it('counts failures only and returns the failures before each attempt, per window', async () => {
    const attempt = (ms: number, failed: boolean) => ctx.store.run((r) => r.rateCounters.countAttempt('attempts', 60, t(ms), failed));
    expect(await attempt(1, false)).toEqual({ failuresBefore: 0, resetAt: t(60_000) });
    expect(await attempt(2, true)).toEqual({ failuresBefore: 0, resetAt: t(60_000) });
    expect(await attempt(3, true)).toEqual({ failuresBefore: 1, resetAt: t(60_000) });
    expect(await attempt(4, false)).toEqual({ failuresBefore: 2, resetAt: t(60_000) });
    expect((await ctx.store.run((r) => r.rateCounters.peek('attempts', 60, t(5)))).count).toBe(2);
    // The next window starts from nothing; a success there counts nothing either.
    expect(await attempt(60_001, false)).toEqual({ failuresBefore: 0, resetAt: t(120_000) });
    expect(await attempt(60_002, true)).toEqual({ failuresBefore: 0, resetAt: t(120_000) });
  });

  it('orders 100 concurrent attempts from several stores: the failures see 0..n-1 once each', async () => {
    const stores: DataStore[] = [ctx.store, await ctx.openAnother(), await ctx.openAnother(), await ctx.openAnother()];
    // 80 failures and 20 successes, interleaved.
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const failed = i % 5 !== 0;
        return stores[i % stores.length]!.run((r) => r.rateCounters.countAttempt('burst', 60, t(10 + (i % 7)), failed)).then((res) => ({ failed, ...res }));
      }),
    );
    const before = results.filter((r) => r.failed).map((r) => r.failuresBefore).sort((a, b) => a - b);
    expect(before).toEqual(Array.from({ length: 80 }, (_, i) => i));
    for (const success of results.filter((r) => !r.failed)) {
      expect(success.failuresBefore).toBeGreaterThanOrEqual(0);
      expect(success.failuresBefore).toBeLessThanOrEqual(80);
    }
    expect((await ctx.store.run((r) => r.rateCounters.peek('burst', 60, t(20)))).count).toBe(80);
  });
});
