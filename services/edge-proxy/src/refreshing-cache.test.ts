import { RefreshingCache } from './refreshing-cache';

function setup(load: (key: string) => Promise<string>) {
  let now = 0;
  const outcomes: boolean[] = [];
  const cache = new RefreshingCache<string>({ load, softTtlMs: 100, hardTtlMs: 300, max: 2, now: () => now, onLoad: (ok) => outcomes.push(ok) });
  return { cache, outcomes, advance: (ms: number) => (now += ms) };
}

describe('RefreshingCache', () => {
  it('loads once for concurrent callers and serves the value without waiting while young', async () => {
    const load = jest.fn(async (key: string) => `${key}-1`);
    const { cache } = setup(load);
    expect(cache.peek('a')).toBeUndefined();
    const [x, y] = await Promise.all([cache.get('a'), cache.get('a')]);
    expect([x, y]).toEqual(['a-1', 'a-1']);
    expect(load).toHaveBeenCalledTimes(1);
    expect(cache.peek('a')).toBe('a-1');
  });

  it('serves a stale value while reloading in the background, and waits once it is older than the hard TTL', async () => {
    let version = 0;
    const { cache, advance } = setup(async () => `v${++version}`);
    await cache.get('k');
    advance(150);
    expect(cache.peek('k')).toBe('v1');
    await Promise.resolve();
    await Promise.resolve();
    expect(cache.peek('k')).toBe('v2');
    advance(400);
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k')).toBe('v3');
  });

  it('falls back to the last value when a reload fails, and throws only when it never had one', async () => {
    let fail = false;
    const { cache, advance, outcomes } = setup(async () => {
      if (fail) throw new Error('database away');
      return 'kept';
    });
    await cache.get('k');
    fail = true;
    advance(1_000);
    expect(await cache.get('k')).toBe('kept');
    await expect(cache.get('other')).rejects.toThrow('database away');
    expect(outcomes).toEqual([true, false, false]);
  });

  it('invalidate() forgets the value and ignores a load that started before it', async () => {
    let release: (v: string) => void = () => undefined;
    const { cache } = setup(() => new Promise<string>((resolve) => (release = resolve)));
    const first = cache.get('k');
    cache.invalidate('k');
    release('old');
    expect(await first).toBe('old');
    expect(cache.peek('k')).toBeUndefined();
  });

  it('uses per-value TTLs and keeps at most `max` entries', async () => {
    let now = 0;
    const cache = new RefreshingCache<string>({
      load: async (key) => key, softTtlMs: 1_000, hardTtlMs: 5_000, max: 2, now: () => now,
      ttlFor: (v) => (v === 'none' ? { softTtlMs: 10, hardTtlMs: 20 } : undefined),
    });
    await cache.get('none');
    await cache.get('a');
    now = 50;
    expect(cache.peek('none')).toBeUndefined();
    expect(cache.peek('a')).toBe('a');
    await cache.get('b');
    await cache.get('c');
    expect(cache.size).toBe(2);
  });
});
