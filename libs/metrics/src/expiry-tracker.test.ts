import { ExpiryTracker } from './expiry-tracker';

const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1) + minutes * 60_000);
const day = (n: number) => new Date(Date.UTC(2026, 3, n));

describe('ExpiryTracker', () => {
  it('answers null before any certificate is seen', () => {
    expect(new ExpiryTracker(60_000).earliest(at(0))).toBeNull();
  });

  it('answers the earliest notAfter, and the next one once that domain is forgotten', () => {
    const tracker = new ExpiryTracker(30 * 60_000);
    tracker.see('a', day(20), at(0));
    tracker.see('b', day(5), at(1));
    tracker.see('c', day(9), at(2));
    expect(tracker.earliest(at(3))).toEqual(day(5));
    tracker.forget('b');
    expect(tracker.earliest(at(3))).toEqual(day(9));
  });

  it('replaces a renewed certificate of the same domain', () => {
    const tracker = new ExpiryTracker(30 * 60_000);
    tracker.see('a', day(2), at(0));
    tracker.see('a', day(30), at(1));
    expect(tracker.earliest(at(2))).toEqual(day(30));
    expect(tracker.size).toBe(1);
  });

  it('drops entries not seen again within the time to live', () => {
    const tracker = new ExpiryTracker(10 * 60_000);
    tracker.see('old', day(1), at(0));
    tracker.see('fresh', day(15), at(8));
    expect(tracker.earliest(at(10))).toEqual(day(1));
    expect(tracker.earliest(at(11))).toEqual(day(15));
    expect(tracker.size).toBe(1);
    expect(tracker.earliest(at(19))).toBeNull();
    expect(tracker.size).toBe(0);
  });
});
