import { backoffDelayMs } from './backoff';

describe('backoffDelayMs', () => {
  it('doubles the base once per earlier failure', () => {
    expect([0, 1, 2, 3, 4].map((attempt) => backoffDelayMs(attempt, 200, 10_000))).toEqual([200, 400, 800, 1600, 3200]);
  });

  it('never goes above the ceiling', () => {
    expect(backoffDelayMs(5, 200, 5_000)).toBe(5_000);
    expect(backoffDelayMs(30, 1_000, 300_000)).toBe(300_000);
  });

  it('stays finite and at the ceiling however long the failures go on', () => {
    expect(backoffDelayMs(10_000, 1_000, 60_000)).toBe(60_000);
    expect(backoffDelayMs(10_000, 0, 60_000)).toBe(0);
  });

  it('takes a negative attempt as the first', () => {
    expect(backoffDelayMs(-1, 250, 5_000)).toBe(250);
  });
});
