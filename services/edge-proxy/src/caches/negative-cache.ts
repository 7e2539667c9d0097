// Names (or tokens) known to have nothing behind them: an unknown SNI name,
// Host or ACME token is remembered for a short while (DECISIONS §5: at most
// 2 s), so a flood of one random name cannot turn into a query per request.
// Kept apart from the positive entries and bounded on its own: a flood of
// distinct random names evicts only other negatives, never a hot hostname.
import { LRUCache } from 'lru-cache';

/** DECISIONS §5: an unknown name is remembered as unknown for at most this long. */
export const NEGATIVE_TTL_MS = 2_000;

export interface NegativeCacheOptions {
  ttlMs?: number;
  max: number;
  now?: () => number;
}

export class NegativeCache {
  /** Key → when it was found absent. */
  private readonly seen: LRUCache<string, number>;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(opts: NegativeCacheOptions) {
    this.seen = new LRUCache({ max: opts.max });
    this.ttlMs = opts.ttlMs ?? NEGATIVE_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  /** True while the key was found absent less than the TTL ago. */
  has(key: string): boolean {
    const at = this.seen.get(key);
    return at !== undefined && this.now() - at < this.ttlMs;
  }

  /** True when the key was ever found absent and not forgotten since, however long ago (the answer while the database is away). */
  hadAbsent(key: string): boolean {
    return this.seen.has(key);
  }

  /** The key was found absent `at` (when the load that found it started). */
  remember(key: string, at: number = this.now()): void {
    this.seen.set(key, at);
  }

  forget(key: string): void {
    this.seen.delete(key);
  }

  clear(): void {
    this.seen.clear();
  }

  get size(): number {
    return this.seen.size;
  }
}
