import { ReadBudget, ReadBudgetSpent } from './read-budget';
import { DEFAULT_CACHE_MAX_AGE_MS, RefreshingCache } from './refreshing-cache';

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

  it('loads a value again once it expires, however fresh the feed says it is, and keeps at most `max` entries', async () => {
    let now = 0;
    const cache = new RefreshingCache<string>({
      load: async (key) => key, softTtlMs: 1_000, hardTtlMs: 5_000, max: 2, now: () => now, freshSince: () => now,
      expiresAt: (v) => (v === 'short' ? 10 : Infinity),
    });
    await cache.get('short');
    await cache.get('a');
    now = 50;
    expect(cache.peek('short')).toBeUndefined();
    expect(cache.peek('a')).toBe('a');
    await cache.get('b');
    await cache.get('c');
    expect(cache.size).toBe(2);
  });

  it('ages entries from the last read of the change feed: no reloads while it runs, the TTLs again once it stalls', async () => {
    let now = 0;
    let feedReadAt = 0;
    let version = 0;
    const cache = new RefreshingCache<string>({ load: async () => `v${++version}`, softTtlMs: 100, hardTtlMs: 300, max: 10, now: () => now, freshSince: () => feedReadAt });
    await cache.get('k');
    for (let i = 0; i < 10; i += 1) {
      now += 90;
      feedReadAt = now - 50;
      expect(cache.peek('k')).toBe('v1');
    }
    await Promise.resolve();
    expect(version).toBe(1);
    now += 400;
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k')).toBe('v2');
  });

  it('remembers absent keys apart for their TTL, answers certain ones without a load (peek), and never evicts entries for them', async () => {
    let now = 0;
    const load = jest.fn(async (key: string) => (key.startsWith('known') ? key : 'none'));
    const cache = new RefreshingCache<string>({
      load, softTtlMs: 1_000, hardTtlMs: 5_000, max: 2, now: () => now,
      absent: { value: 'none', max: 100, ttlMs: 2_000, certain: (key) => key.startsWith('never') },
    });
    await cache.get('known-1');
    await cache.get('known-2');
    for (let i = 0; i < 50; i += 1) expect(await cache.get(`random-${i}`)).toBe('none');
    expect(await cache.get('random-0')).toBe('none');
    expect(cache.peek('never-seen')).toBe('none');
    expect(load).toHaveBeenCalledTimes(52);
    expect(cache.peek('known-1')).toBe('known-1');
    expect(cache.peek('known-2')).toBe('known-2');
    now = 2_000;
    expect(cache.peek('random-0')).toBeUndefined();
    cache.invalidate('random-1');
    expect(cache.peek('random-1')).toBeUndefined();
  });

  it('answers an absent key found before when the database is away, and throws for one never seen', async () => {
    let now = 0;
    let fail = false;
    const cache = new RefreshingCache<string>({
      load: async () => {
        if (fail) throw new Error('database away');
        return 'none';
      },
      softTtlMs: 1_000, hardTtlMs: 5_000, max: 2, now: () => now, absent: { value: 'none', max: 10 },
    });
    await cache.get('gone');
    fail = true;
    now = 60_000;
    expect(await cache.get('gone')).toBe('none');
    await expect(cache.get('other')).rejects.toThrow('database away');
  });

  it('invalidateWhere() forgets the entries it picks', async () => {
    const cache = new RefreshingCache<string>({ load: async (key) => key, softTtlMs: 1_000, hardTtlMs: 5_000, max: 10 });
    for (const key of ['app1/a', 'app1/b', 'app2/c']) await cache.get(key);
    cache.invalidateWhere((value) => value.startsWith('app1/'));
    expect([cache.peek('app1/a'), cache.peek('app1/b'), cache.peek('app2/c')]).toEqual([undefined, undefined, 'app2/c']);
  });

  it('reads an entry again once it was loaded the maximum age ago, even while the feed says nothing changed', async () => {
    let now = 0;
    let version = 0;
    const cache = new RefreshingCache<string>({
      load: async () => `v${++version}`, softTtlMs: 100, hardTtlMs: 300, max: 10, now: () => now, freshSince: () => now, maxAgeMs: 60_000,
    });
    await cache.get('k');
    // The feed reads every second: the entry stays current, with no read, up to 90 % of its maximum age.
    for (now = 1_000; now < 54_000; now += 1_000) expect(cache.peek('k')).toBe('v1');
    await Promise.resolve();
    expect(version).toBe(1);
    // In use past 90 %: served as is while one read starts in the background.
    now = 54_000;
    expect(cache.peek('k')).toBe('v1');
    await Promise.resolve();
    await Promise.resolve();
    expect(version).toBe(2);
    expect(cache.peek('k')).toBe('v2');
    // Not used in between: at its maximum age it is not served as is.
    now = 54_000 + 60_000;
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k')).toBe('v3');
  });

  it('keeps 5 minutes as the default maximum age', async () => {
    let now = 0;
    const cache = new RefreshingCache<string>({ load: async () => 'v', softTtlMs: 100, hardTtlMs: 300, max: 10, now: () => now, freshSince: () => now });
    await cache.get('k');
    now = DEFAULT_CACHE_MAX_AGE_MS - 1;
    expect(cache.peek('k')).toBe('v');
    now = DEFAULT_CACHE_MAX_AGE_MS;
    expect(cache.peek('k')).toBeUndefined();
    expect(DEFAULT_CACHE_MAX_AGE_MS).toBe(300_000);
  });

  it('reads a key held for nothing only while the miss budget allows, and serves held keys whatever the budget', async () => {
    let now = 0;
    const load = jest.fn(async (key: string) => (key.startsWith('live') ? key : 'none'));
    const cache = new RefreshingCache<string>({
      load, softTtlMs: 1_000, hardTtlMs: 5_000, max: 100, now: () => now, freshSince: () => now,
      absent: { value: 'none', max: 100, ttlMs: 2_000 }, missBudget: new ReadBudget({ perSecond: 2, burst: 3, now: () => now }),
    });
    expect(await cache.get('live-a')).toBe('live-a');
    expect(await cache.get('random-1')).toBe('none');
    expect(await cache.get('live-b')).toBe('live-b');
    // The budget is spent: a miss is refused without a read, cached keys are served.
    await expect(cache.get('random-2')).rejects.toThrow(ReadBudgetSpent);
    expect(cache.peek('live-a')).toBe('live-a');
    expect(await cache.get('random-1')).toBe('none');
    expect(load).toHaveBeenCalledTimes(3);
    // A changed key is read again as a held key, not as a miss; so is one a change names that was never held.
    cache.invalidate('live-a');
    expect(await cache.get('live-a')).toBe('live-a');
    cache.invalidate('live-new');
    expect(cache.peek('live-new')).toBeUndefined();
    expect(await cache.get('live-new')).toBe('live-new');
    expect(load).toHaveBeenCalledTimes(5);
    // Half a second later one more miss may be read.
    now += 500;
    expect(await cache.get('random-2')).toBe('none');
    await expect(cache.get('random-3')).rejects.toThrow(ReadBudgetSpent);
    // The unknown name's 2 s are over: reading it again is a miss like any other.
    now += 2_000;
    expect(await cache.get('random-1')).toBe('none');
    expect(load).toHaveBeenCalledTimes(7);
  });

  it('does not use a value a change dropped, even when its reload fails', async () => {
    let fail = false;
    const cache = new RefreshingCache<string>({
      load: async (key) => {
        if (fail) throw new Error('database away');
        return key;
      },
      softTtlMs: 1_000, hardTtlMs: 5_000, max: 10,
    });
    await cache.get('k');
    cache.invalidate('k');
    fail = true;
    expect(cache.peek('k')).toBeUndefined();
    await expect(cache.get('k')).rejects.toThrow('database away');
  });
});
