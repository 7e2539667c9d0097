import { answerOutcome, DELIVERY_STATES, retryDelayAfter, SUBSCRIPTION_STATUSES, WEBHOOK_MAX_ATTEMPTS } from './webhook-delivery';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DEFAULT_SCHEDULE = [MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 12 * HOUR, 24 * HOUR, 24 * HOUR];

describe('webhook statuses', () => {
  it('lists the contract values', () => {
    expect(SUBSCRIPTION_STATUSES).toEqual(['active', 'revoked']);
    expect(DELIVERY_STATES).toEqual(['pending', 'delivered', 'abandoned']);
  });
});

describe('retryDelayAfter', () => {
  it('follows the schedule for attempts 2..8 and stops after the 8th', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((made) => retryDelayAfter(made, DEFAULT_SCHEDULE));
    expect(delays).toEqual(DEFAULT_SCHEDULE);
    expect(retryDelayAfter(WEBHOOK_MAX_ATTEMPTS, DEFAULT_SCHEDULE)).toBeNull();
    expect(retryDelayAfter(9, DEFAULT_SCHEDULE)).toBeNull();
  });

  it('repeats the last delay when the schedule is shorter (the spec lists six delays for eight attempts)', () => {
    const six = DEFAULT_SCHEDULE.slice(0, 6);
    expect([6, 7].map((made) => retryDelayAfter(made, six))).toEqual([24 * HOUR, 24 * HOUR]);
    expect([1, 2, 3, 7].map((made) => retryDelayAfter(made, [100]))).toEqual([100, 100, 100, 100]);
  });

  it('honours another attempt limit and refuses an empty schedule', () => {
    expect(retryDelayAfter(2, [10, 20], 3)).toBe(20);
    expect(retryDelayAfter(3, [10, 20], 3)).toBeNull();
    expect(() => retryDelayAfter(1, [])).toThrow(/empty/);
  });
});

describe('answerOutcome', () => {
  it('delivers on every 2xx', () => {
    for (const status of [200, 201, 202, 204, 299]) expect(answerOutcome(status)).toEqual({ delivered: true });
  });

  it('fails on 3xx (not followed), 4xx and 5xx, saying the status', () => {
    expect(answerOutcome(302)).toEqual({ delivered: false, error: 'receiver answered HTTP 302; redirects are not followed' });
    expect(answerOutcome(308)).toMatchObject({ delivered: false });
    expect(answerOutcome(404)).toEqual({ delivered: false, error: 'receiver answered HTTP 404' });
    expect(answerOutcome(500)).toEqual({ delivered: false, error: 'receiver answered HTTP 500' });
    expect(answerOutcome(100)).toMatchObject({ delivered: false });
  });
});
