import type { RateCountersRepository } from '@cds/data';
import { countFailure, peekThrottle } from './failure-throttle';

/** One clock-aligned window in memory, with the two methods the throttle uses: enough to see what is counted and what is admitted. */
function counters(): RateCountersRepository & { count: number } {
  const state = { count: 0 };
  const resetAt = new Date(Date.UTC(2026, 0, 1, 0, 1));
  const methods: Pick<RateCountersRepository, 'countAttempt' | 'peek'> = {
    countAttempt: async (_key, _windowSeconds, _now, failed) => {
      const failuresBefore = state.count;
      if (failed) state.count += 1;
      return { failuresBefore, resetAt };
    },
    peek: async () => ({ count: state.count, resetAt }),
  };
  return Object.assign(state, methods) as unknown as RateCountersRepository & { count: number };
}

const at = new Date(Date.UTC(2026, 0, 1, 0, 0, 15));

describe('failure throttle', () => {
  it('answers failures while fewer than the limit came before them, counting each', async () => {
    const c = counters();
    const verdicts = [];
    for (let i = 0; i < 5; i++) verdicts.push((await countFailure(c, 'k', 3, at)).admitted);
    // Failures 1 to 3 are answered; the ones after them are refused.
    expect(verdicts).toEqual([true, true, true, false, false]);
    expect(c.count).toBe(5);
  });

  it('gives the seconds until the window ends as Retry-After', async () => {
    const c = counters();
    expect(await countFailure(c, 'k', 1, at)).toEqual({ admitted: true, retryAfterSeconds: 45 });
    expect(await countFailure(c, 'k', 1, at)).toEqual({ admitted: false, retryAfterSeconds: 45 });
  });

  it('refuses an address already at its limit before any check, without counting', async () => {
    const c = counters();
    expect((await peekThrottle(c, 'k', 2, at)).admitted).toBe(true);
    c.count = 2;
    expect(await peekThrottle(c, 'k', 2, at)).toEqual({ admitted: false, retryAfterSeconds: 45 });
    expect(c.count).toBe(2);
  });
});
