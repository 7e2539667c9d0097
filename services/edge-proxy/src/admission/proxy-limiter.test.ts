import type { DataStore, Repositories } from '@cds/data';
import { batchSize, ProxyLimiter } from './proxy-limiter';

/** A shared counter standing in for the rate_counters table (the integration tests use the real one). */
function sharedCounters(opts: { failing?: () => boolean } = {}) {
  const counts = new Map<string, { start: number; count: number }>();
  const store = {
    run: async <T>(fn: (r: Repositories) => Promise<T>) => fn({
      rateCounters: {
        hit: async (key: string, windowSeconds: number, now: Date, o: { amount?: number } = {}) => {
          if (opts.failing?.()) throw new Error('database away');
          const start = Math.floor(now.getTime() / (windowSeconds * 1000));
          const row = counts.get(key);
          const next = row && row.start === start ? row.count + (o.amount ?? 1) : (o.amount ?? 1);
          counts.set(key, { start, count: next });
          return { count: next, resetAt: new Date((start + 1) * windowSeconds * 1000) };
        },
      },
    } as unknown as Repositories),
  } as unknown as DataStore;
  return store;
}

const app = (perSecond: number, perMinute: number) => ({ id: 'app-1', slug: 'shop', status: 'active' as const, limits: { proxied_requests_per_second: perSecond, proxied_requests_per_minute: perMinute } as never });

async function allowedOf(limiter: ProxyLimiter, a: ReturnType<typeof app>, n: number): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < n; i++) if ((await limiter.check(a)).allowed) allowed += 1;
  return allowed;
}

describe('ProxyLimiter', () => {
  it('batches: about 5 % of the limit, smaller as the window fills', () => {
    expect(batchSize(100, null)).toBe(5);
    expect(batchSize(600, null)).toBe(30);
    expect(batchSize(1e9, null)).toBe(1000);
    expect(batchSize(100, 8)).toBe(2);
    expect(batchSize(100, 2)).toBe(1);
    expect(batchSize(1, null)).toBe(1);
  });

  it('lets exactly the per-second limit through one edge, then refuses with the seconds left', async () => {
    const now = 5_000_000;
    const limiter = new ProxyLimiter({ store: sharedCounters(), now: () => now });
    expect(await allowedOf(limiter, app(100, 600), 150)).toBe(100);
    const refused = await limiter.check(app(100, 600));
    expect(refused).toEqual({ allowed: false, retryAfter: 1, limit: 'proxied_requests_per_second' });
  });

  it('never lets two edges together pass the limit, and wastes little', async () => {
    const store = sharedCounters();
    const now = 7_000_000;
    const a = new ProxyLimiter({ store, now: () => now });
    const b = new ProxyLimiter({ store, now: () => now });
    let allowed = 0;
    for (let i = 0; i < 200; i++) if ((await (i % 2 ? a : b).check(app(100, 600))).allowed) allowed += 1;
    expect(allowed).toBeLessThanOrEqual(100);
    expect(allowed).toBeGreaterThanOrEqual(98);
  });

  it('refuses by the minute limit and gives the per-second budget back', async () => {
    let now = 60_000 * 100;
    const limiter = new ProxyLimiter({ store: sharedCounters(), now: () => now });
    expect(await allowedOf(limiter, app(3, 4), 3)).toBe(3);
    now += 1_000;
    expect(await allowedOf(limiter, app(3, 4), 3)).toBe(1);
    const refused = await limiter.check(app(3, 4));
    expect(refused).toMatchObject({ allowed: false, limit: 'proxied_requests_per_minute', retryAfter: 59 });
  });

  it('counts alone, up to the limit, when the database is away', async () => {
    const errors: unknown[] = [];
    const limiter = new ProxyLimiter({ store: sharedCounters({ failing: () => true }), now: () => 9_000_000, onError: (e) => errors.push(e) });
    expect(await allowedOf(limiter, app(10, 600), 15)).toBe(10);
    expect(errors.length).toBeGreaterThan(0);
  });
});
