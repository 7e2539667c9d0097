/** Fixed-window counters shared by every process that uses the database. */
export interface RateCountersRepository {
  /**
   * Adds `amount` hits (default 1) to `key` in the window of `windowSeconds` that contains `now`
   * (clock-aligned; `anchored`: a window that starts at its first hit),
   * returning the count after the hit and when the window ends.
   */
  hit(key: string, windowSeconds: number, now: Date, opts?: { anchored?: boolean; amount?: number }): Promise<{ count: number; resetAt: Date }>;
  /**
   * One authentication attempt against a failure throttle, as one atomic upsert in the
   * clock-aligned window: adds 1 when it `failed`, 0 when it succeeded, and returns the
   * failures counted before it. A success writes the row too, so every attempt takes
   * its place in one order with the concurrent ones (see libs/http failure-throttle.ts).
   */
  countAttempt(key: string, windowSeconds: number, now: Date, failed: boolean): Promise<{ failuresBefore: number; resetAt: Date }>;
  /** Current count without adding a hit. */
  peek(key: string, windowSeconds: number, now: Date): Promise<{ count: number; resetAt: Date }>;
  /**
   * Adds one hit to `key` in the clock-aligned window of `windowSeconds` only while the
   * window's count is below `limit`, atomically (two writers never both take the last
   * slot); `counted` says whether it did, `count` is the count after it (or as it stands).
   */
  hitBelow(key: string, windowSeconds: number, now: Date, limit: number): Promise<{ counted: boolean; count: number; resetAt: Date }>;
  /** The counts of `keys` in the clock-aligned window that contains `now` (0 for a key without one). */
  peekMany(keys: readonly string[], windowSeconds: number, now: Date): Promise<Map<string, number>>;
}
