import { KeySpacing } from './key-spacing';
import { EDGE_CHECK_SPACING_MS } from './messages';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => { t += ms; } };
}

describe('KeySpacing', () => {
  it('lets one request per domain through per 10 s, each domain apart', () => {
    const c = clock();
    const throttle = new KeySpacing({ spacingMs: EDGE_CHECK_SPACING_MS, now: c.now });
    expect(throttle.take('d1')).toBe(true);
    expect(throttle.take('d1')).toBe(false);
    expect(throttle.take('d2')).toBe(true);
    c.advance(EDGE_CHECK_SPACING_MS - 1);
    expect(throttle.take('d1')).toBe(false);
    c.advance(1);
    expect(throttle.take('d1')).toBe(true);
    expect(throttle.take('d2')).toBe(true);
    expect(throttle.take('d1')).toBe(false);
  });

  it('forgets domains once their 10 s have passed: memory holds what one spacing brings', () => {
    const c = clock();
    const throttle = new KeySpacing({ spacingMs: EDGE_CHECK_SPACING_MS, now: c.now });
    for (let i = 0; i < 1000; i++) {
      expect(throttle.take(`d${i}`)).toBe(true);
      c.advance(5);
    }
    expect(throttle.size).toBe(1000);
    c.advance(EDGE_CHECK_SPACING_MS);
    expect(throttle.take('other')).toBe(true);
    expect(throttle.size).toBe(1);
    // A steady stream of new domains keeps the map at one spacing's worth.
    for (let i = 0; i < 10_000; i++) {
      throttle.take(`e${i}`);
      c.advance(100);
    }
    expect(throttle.size).toBeLessThanOrEqual(EDGE_CHECK_SPACING_MS / 100);
  });

  it('forgets in time order, a renewed domain moving to the end', () => {
    const c = clock();
    const throttle = new KeySpacing({ now: c.now, spacingMs: 100 });
    throttle.take('a');
    c.advance(60);
    throttle.take('b');
    c.advance(40);
    // a's spacing is over: it is forgotten and taken again (now the newest); b stays.
    expect(throttle.take('a')).toBe(true);
    expect(throttle.take('b')).toBe(false);
    c.advance(60);
    expect(throttle.take('b')).toBe(true);
    expect(throttle.take('a')).toBe(false);
    expect(throttle.size).toBe(2);
  });
});

