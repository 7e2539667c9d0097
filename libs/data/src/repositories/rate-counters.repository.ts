import { In, type EntityManager, type Repository } from 'typeorm';
import { ENTITY, type RateCounterRow } from '../entities';
import { numberFromDb, queryRows, timestampFromDb } from '../sql';
import type { RateCountersRepository } from './rate-counters.types';

// One atomic upsert, safe for any number of concurrent writers. A hit in the stored
// window (or one stamped before it, from a late request or a slower clock) counts in
// the stored window; a hit in a later window starts that window at 1. A late hit
// therefore never moves the window back and resets the count.
const ALIGNED_CONFLICT = `
  ON CONFLICT ("key") DO UPDATE SET
    "count" = CASE WHEN rate_counters.window_start >= excluded.window_start THEN rate_counters."count" + :amount ELSE :amount END,
    reset_at = CASE WHEN rate_counters.window_start >= excluded.window_start THEN rate_counters.reset_at ELSE excluded.reset_at END,
    window_start = CASE WHEN rate_counters.window_start >= excluded.window_start THEN rate_counters.window_start ELSE excluded.window_start END
  RETURNING "count", reset_at`;

/**
 * A clock-aligned hit whose row comes from `source`, a SELECT or VALUES of
 * ("key", window_start, reset_at, "count" = :amount); for statements that
 * count a hit along with other work.
 */
export const alignedHit = (source: string): string => `INSERT INTO rate_counters ("key", window_start, reset_at, "count") ${source} ${ALIGNED_CONFLICT}`;

const HIT = alignedHit('VALUES (:key, :windowStart, :resetAt, :amount)');

// Anchored windows start at their first hit and last `windowSeconds` from it,
// for limits stated as "one per N seconds" that a clock-aligned window would
// let through twice across a boundary.
const HIT_ANCHORED = `
  INSERT INTO rate_counters ("key", window_start, reset_at, "count")
  VALUES (:key, :windowStart, :resetAt, :amount)
  ON CONFLICT ("key") DO UPDATE SET
    "count" = CASE WHEN rate_counters.reset_at > excluded.window_start THEN rate_counters."count" + :amount ELSE :amount END,
    reset_at = CASE WHEN rate_counters.reset_at > excluded.window_start THEN rate_counters.reset_at ELSE excluded.reset_at END,
    window_start = CASE WHEN rate_counters.reset_at > excluded.window_start THEN rate_counters.window_start ELSE excluded.window_start END
  RETURNING "count", reset_at`;

/** The fixed window of `windowSeconds` that contains `now`: [floor(epoch / window) * window, + window). */
export function windowOf(windowSeconds: number, now: Date): { windowStart: Date; resetAt: Date } {
  if (!(windowSeconds > 0)) throw new RangeError(`windowSeconds must be positive (got ${windowSeconds}).`);
  const windowMs = windowSeconds * 1000;
  const start = Math.floor(now.getTime() / windowMs) * windowMs;
  return { windowStart: new Date(start), resetAt: new Date(start + windowMs) };
}

// A hit counted only while the window's count is below :limit (a new window
// always has room): the row lock makes concurrent writers take the last slot
// once. When it is refused, nothing changes and no row is returned.
const HIT_BELOW = `
  INSERT INTO rate_counters ("key", window_start, reset_at, "count")
  VALUES (:key, :windowStart, :resetAt, 1)
  ON CONFLICT ("key") DO UPDATE SET
    "count" = CASE WHEN rate_counters.window_start >= excluded.window_start THEN rate_counters."count" + 1 ELSE 1 END,
    reset_at = CASE WHEN rate_counters.window_start >= excluded.window_start THEN rate_counters.reset_at ELSE excluded.reset_at END,
    window_start = CASE WHEN rate_counters.window_start >= excluded.window_start THEN rate_counters.window_start ELSE excluded.window_start END
  WHERE rate_counters.window_start < excluded.window_start OR rate_counters."count" < :limit
  RETURNING "count", reset_at`;

export class TypeOrmRateCountersRepository implements RateCountersRepository {
  private readonly rows: Repository<RateCounterRow>;

  constructor(private readonly manager: EntityManager) {
    this.rows = manager.getRepository<RateCounterRow>(ENTITY.rateCounter);
  }

  async hit(key: string, windowSeconds: number, now: Date, opts: { anchored?: boolean; amount?: number } = {}): Promise<{ count: number; resetAt: Date }> {
    const amount = opts.amount ?? 1;
    if (!Number.isSafeInteger(amount) || amount < 1) throw new RangeError(`amount must be a positive integer (got ${amount}).`);
    const window = opts.anchored ? { windowStart: now, resetAt: new Date(now.getTime() + windowSeconds * 1000) } : windowOf(windowSeconds, now);
    const [row] = await queryRows<{ count: unknown; reset_at: unknown }>(this.manager, opts.anchored ? HIT_ANCHORED : HIT, { key, amount, ...window });
    if (!row) throw new Error('Rate counter upsert returned no row.');
    return { count: numberFromDb(row.count), resetAt: timestampFromDb(row.reset_at) };
  }

  async countAttempt(key: string, windowSeconds: number, now: Date, failed: boolean): Promise<{ failuresBefore: number; resetAt: Date }> {
    // A success adds 0 but goes through the same upsert: the row lock orders it among the failures.
    const amount = failed ? 1 : 0;
    const [row] = await queryRows<{ count: unknown; reset_at: unknown }>(this.manager, HIT, { key, amount, ...windowOf(windowSeconds, now) });
    if (!row) throw new Error('Rate counter upsert returned no row.');
    return { failuresBefore: numberFromDb(row.count) - amount, resetAt: timestampFromDb(row.reset_at) };
  }

  async peek(key: string, windowSeconds: number, now: Date): Promise<{ count: number; resetAt: Date }> {
    const window = windowOf(windowSeconds, now);
    const row = await this.rows.findOneBy({ key });
    if (!row || row.windowStart < window.windowStart) return { count: 0, resetAt: window.resetAt };
    return { count: row.count, resetAt: row.resetAt };
  }

  async hitBelow(key: string, windowSeconds: number, now: Date, limit: number): Promise<{ counted: boolean; count: number; resetAt: Date }> {
    if (limit >= 1) {
      const [row] = await queryRows<{ count: unknown; reset_at: unknown }>(this.manager, HIT_BELOW, { key, limit, ...windowOf(windowSeconds, now) });
      if (row) return { counted: true, count: numberFromDb(row.count), resetAt: timestampFromDb(row.reset_at) };
    }
    return { counted: false, ...(await this.peek(key, windowSeconds, now)) };
  }

  async peekMany(keys: readonly string[], windowSeconds: number, now: Date): Promise<Map<string, number>> {
    const { windowStart } = windowOf(windowSeconds, now);
    const counts = new Map(keys.map((key) => [key, 0]));
    if (keys.length === 0) return counts;
    for (const row of await this.rows.findBy({ key: In([...keys]) })) {
      if (row.windowStart >= windowStart) counts.set(row.key, row.count);
    }
    return counts;
  }
}
