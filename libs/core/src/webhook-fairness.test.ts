import {
  applicationSlots,
  coolingAfter,
  exceedsPendingLimit,
  isCooling,
  NOT_COOLING,
  recentFailures,
  subscriptionSlots,
  WEBHOOK_COOLING_AFTER_FAILURES,
  WEBHOOK_COOLING_RECENT_ATTEMPTS,
  WEBHOOK_COOLING_RECENT_FAILURES,
  type CoolingState,
} from './webhook-fairness';

/** The state after these outcomes (true: delivered), from none. */
const after = (outcomes: boolean[], from: CoolingState = NOT_COOLING) => outcomes.reduce(coolingAfter, from);
const times = (n: number, delivered: boolean) => Array<boolean>(n).fill(delivered);
/** `rounds` rounds of `failures` failed attempts and one success. */
const pattern = (failures: number, rounds: number) => Array.from({ length: rounds }, () => [...times(failures, false), true]).flat();

describe('cooling', () => {
  it('starts once the last 5 attempts all failed', () => {
    expect(WEBHOOK_COOLING_AFTER_FAILURES).toBe(5);
    expect([0, 1, 4, 5, 6, 100].map((n) => isCooling(after(times(n, false))))).toEqual([false, false, false, true, true, true]);
  });

  it('counts failures in a row, and a success after them ends cooling: the failures of that streak no longer count', () => {
    const failing = after(times(25, false));
    expect(failing).toEqual({ failureStreak: 25, recentOutcomes: 'f'.repeat(20) });
    expect(isCooling(failing)).toBe(true);
    expect(after([true], failing)).toEqual(NOT_COOLING);
    // After most attempts failed, then 5 in a row: the success ends cooling, the earlier failures still count.
    const flakyThenDown = after([...pattern(4, 3), ...times(5, false)]);
    expect(flakyThenDown).toEqual({ failureStreak: 5, recentOutcomes: 'ffffsffffsffffsfffff' });
    expect(after([true], flakyThenDown)).toEqual({ failureStreak: 0, recentOutcomes: 'ffffsffffsffffss' });
    expect(isCooling(after([true], flakyThenDown))).toBe(false);
    // Whatever came before: a success after 5 or more failures in a row is never followed by cooling.
    for (let before = 0; before < 40; before++) {
      for (const streak of [5, 6, 19, 20, 30]) {
        const state = after([...pattern(4, 8).slice(0, before), ...times(streak, false), true]);
        expect(isCooling(state)).toBe(false);
      }
    }
  });

  it('starts too once at least 16 of the last 20 attempts failed, with never 5 in a row', () => {
    expect([WEBHOOK_COOLING_RECENT_FAILURES, WEBHOOK_COOLING_RECENT_ATTEMPTS]).toEqual([16, 20]);
    // 4 of every 5 fail: 16 failures among the last 20 from the 19th attempt on.
    const outcomes = pattern(4, 10);
    const states = outcomes.map((_, i) => after(outcomes.slice(0, i + 1)));
    expect(states.map(isCooling).indexOf(true)).toBe(18);
    expect(states.slice(18).every(isCooling)).toBe(true);
    expect(Math.max(...states.map((s) => s.failureStreak))).toBe(4);
    // A success does not end this cooling: 16 of the last 20 still failed.
    expect(states[states.length - 1]).toEqual({ failureStreak: 0, recentOutcomes: 'ffffsffffsffffsffffs' });
    expect(isCooling(states[states.length - 1] as CoolingState)).toBe(true);
  });

  it('ends it once fewer than 16 of the last 20 failed', () => {
    const cooling = after(pattern(4, 4));
    expect(isCooling(cooling)).toBe(true);
    const better = after([true], cooling);
    expect(better.recentOutcomes).toBe('fffsffffsffffsffffss');
    expect(recentFailures(better.recentOutcomes)).toBe(15);
    expect(isCooling(better)).toBe(false);
  });

  it('does not cool a receiver that fails 3 of every 4 attempts', () => {
    expect(after(pattern(3, 50)).recentOutcomes).toMatch(/^f/);
    expect(pattern(3, 50).map((_, i) => isCooling(after(pattern(3, 50).slice(0, i + 1)))).some(Boolean)).toBe(false);
  });

  it('keeps only what can count: at most the last 20 attempts, from the oldest failure among them', () => {
    expect(after(times(100, true))).toEqual(NOT_COOLING);
    expect(after([false, true, true])).toEqual({ failureStreak: 0, recentOutcomes: 'fss' });
    expect(after([false, ...times(19, true)])).toEqual({ failureStreak: 0, recentOutcomes: 'f'.concat('s'.repeat(19)) });
    // The failure drops out with the 21st attempt, and the successes before any failure with it.
    expect(after([false, ...times(20, true)])).toEqual(NOT_COOLING);
    expect(after([false, ...times(20, true), false])).toEqual({ failureStreak: 1, recentOutcomes: 'f' });
  });

  it('gives a cooling subscription one slot, any other the configured number', () => {
    expect(subscriptionSlots(NOT_COOLING, 4)).toBe(4);
    expect(subscriptionSlots(after(times(4, false)), 4)).toBe(4);
    expect(subscriptionSlots(after(times(5, false)), 4)).toBe(1);
    expect(subscriptionSlots(after(pattern(4, 4)), 4)).toBe(1);
    expect(subscriptionSlots(after(times(9, false)), 1)).toBe(1);
  });
});

describe('applicationSlots', () => {
  it("is half a dispatcher's slots, at least one", () => {
    expect([1, 2, 3, 8, 9, 32].map(applicationSlots)).toEqual([1, 1, 1, 4, 4, 16]);
  });
});

describe('exceedsPendingLimit', () => {
  it('refuses only what would go above the limit', () => {
    expect(exceedsPendingLimit(9, 1, 10)).toBe(false);
    expect(exceedsPendingLimit(10, 1, 10)).toBe(true);
    expect(exceedsPendingLimit(0, 10, 10)).toBe(false);
    expect(exceedsPendingLimit(0, 11, 10)).toBe(true);
    // Already above it (new events are always delivered): any replay is refused.
    expect(exceedsPendingLimit(12, 1, 10)).toBe(true);
    // Adding nothing raises nothing.
    expect(exceedsPendingLimit(12, 0, 10)).toBe(false);
  });
});
