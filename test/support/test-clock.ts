// A clock for code that takes `now`: it follows real time but can jump forward
// to the start of a rate window, so a test that counts requests in one window
// starts a fresh one instead of sleeping until the next boundary, or by a few
// milliseconds, so two writes get distinct timestamps without a sleep.

export class TestClock {
  private offsetMs = 0;

  /** The shifted time, as a Date (`now` options of the API, checker and issuers). */
  readonly now = (): Date => new Date(this.epochMs());

  /** The shifted time in epoch milliseconds (the edge's proxied-request limiter). */
  readonly epochMs = (): number => Date.now() + this.offsetMs;

  /** Jumps `ms` forward: whatever is stamped next is at least `ms` later than anything stamped before. */
  advance(ms: number): Date {
    this.offsetMs += ms;
    return this.now();
  }

  /**
   * Jumps to the start of the next `windowSeconds` window aligned to the epoch,
   * as the rate counters' fixed windows are: the whole window lies ahead. Never
   * goes back, so counters written before stay in the past.
   */
  startWindow(windowSeconds: number): Date {
    const windowMs = windowSeconds * 1000;
    const current = this.epochMs();
    this.offsetMs += Math.ceil((current + 1) / windowMs) * windowMs - current;
    return this.now();
  }
}
