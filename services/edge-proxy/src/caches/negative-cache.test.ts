import { NegativeCache } from './negative-cache';

describe('NegativeCache', () => {
  it('remembers an absent key for less than the TTL, and keeps it afterwards only as a fallback', () => {
    let now = 1_000;
    const negatives = new NegativeCache({ ttlMs: 2_000, max: 10, now: () => now });
    expect(negatives.has('x')).toBe(false);
    negatives.remember('x');
    now += 1_999;
    expect(negatives.has('x')).toBe(true);
    now += 1;
    expect(negatives.has('x')).toBe(false);
    expect(negatives.hadAbsent('x')).toBe(true);
    negatives.forget('x');
    expect(negatives.hadAbsent('x')).toBe(false);
  });

  it('counts the TTL from when the load that found the key absent started', () => {
    let now = 5_000;
    const negatives = new NegativeCache({ ttlMs: 2_000, max: 10, now: () => now });
    negatives.remember('x', 3_500);
    expect(negatives.has('x')).toBe(true);
    now = 5_500;
    expect(negatives.has('x')).toBe(false);
  });

  it('keeps at most `max` keys, the least recently used leaving first', () => {
    const negatives = new NegativeCache({ max: 2 });
    negatives.remember('a');
    negatives.remember('b');
    negatives.has('a');
    negatives.remember('c');
    expect(negatives.size).toBe(2);
    expect(negatives.has('a')).toBe(true);
    expect(negatives.has('b')).toBe(false);
  });
});
