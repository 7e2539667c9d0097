import { exceedsPendingLimit, failureStreakAfter, isCooling, subscriptionSlots, WEBHOOK_COOLING_AFTER_FAILURES } from './webhook-fairness';

describe('cooling', () => {
  it('starts once the last 5 attempts all failed', () => {
    expect(WEBHOOK_COOLING_AFTER_FAILURES).toBe(5);
    expect([0, 1, 4, 5, 6, 100].map(isCooling)).toEqual([false, false, false, true, true, true]);
  });

  it('counts failures in a row and ends with a success', () => {
    let streak = 0;
    for (let i = 0; i < 5; i++) streak = failureStreakAfter(streak, false);
    expect(streak).toBe(5);
    expect(isCooling(streak)).toBe(true);
    streak = failureStreakAfter(streak, true);
    expect(streak).toBe(0);
    expect(isCooling(streak)).toBe(false);
  });

  it('gives a cooling subscription one slot, any other the configured number', () => {
    expect(subscriptionSlots(0, 4)).toBe(4);
    expect(subscriptionSlots(4, 4)).toBe(4);
    expect(subscriptionSlots(5, 4)).toBe(1);
    expect(subscriptionSlots(9, 1)).toBe(1);
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
