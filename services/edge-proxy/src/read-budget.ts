// A token bucket for the database reads LiveNames would spare: a name it
// answers as unknown is still read while the budget lasts (a few a second), so
// a domain created a moment ago is served before the change feed brings its
// name, and a flood of random names costs at most the budget.
export interface ReadBudgetOptions {
  perSecond: number;
  burst: number;
  now?: () => number;
}

export class ReadBudget {
  private tokens: number;
  private updatedAt: number;
  private readonly now: () => number;

  constructor(private readonly opts: ReadBudgetOptions) {
    this.now = opts.now ?? Date.now;
    this.tokens = opts.burst;
    this.updatedAt = this.now();
  }

  /** True (and one read spent) when the budget allows a read now. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.opts.burst, this.tokens + ((now - this.updatedAt) / 1_000) * this.opts.perSecond);
    this.updatedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
