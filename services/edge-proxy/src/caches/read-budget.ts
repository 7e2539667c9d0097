// Token buckets for the edge's database reads. One, per cache, for the names
// LiveNames answers as unknown: such a name is still read while it lasts (a
// few a second), so a domain created a moment ago is served before the change
// feed brings its name. One for the whole process, for reads of names the
// caches hold nothing for (misses) that LiveNames cannot vouch for: every name
// while LiveNames cannot answer (not loaded, the feed stalled) costs at most
// that; a miss past it is answered "temporarily unavailable"
// (ReadBudgetSpent) instead of read, and names already cached are served as
// before.
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

/** A miss the edge's read budget had no room for: answered "temporarily unavailable" (a refused handshake, or 503 with Retry-After) instead of read. */
export class ReadBudgetSpent extends Error {
  constructor(readonly key: string) {
    super(`no database read left this second for ${key}`);
    this.name = 'ReadBudgetSpent';
  }
}
