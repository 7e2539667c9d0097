import type { RateCountersRepository } from '@cds/data';

export interface WindowState {
  allowed: boolean;
  limit: number;
  count: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/** Whole seconds from `now` until a window ends at `resetAt` (at least 1): Retry-After, RateLimit-Reset. */
export function secondsUntil(resetAt: Date, now: Date): number {
  return Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
}

/** A window after `count` hits; `allowed` is false once the count passes the limit. */
export function windowState(count: number, limit: number, resetAt: Date, now: Date): WindowState {
  return { allowed: count <= limit, limit, count, remaining: Math.max(0, limit - count), resetSeconds: secondsUntil(resetAt, now) };
}

/**
 * Counts one hit against a fixed window kept in the database, so every replica
 * shares the budget. `allowed` is false once the count passes the limit.
 */
export async function hitWindow(
  counters: RateCountersRepository, key: string, limit: number, windowSeconds: number, now: Date, opts: { anchored?: boolean } = {},
): Promise<WindowState> {
  const { count, resetAt } = await counters.hit(key, windowSeconds, now, opts);
  return windowState(count, limit, resetAt, now);
}

/** Reads a window without counting (is this client already throttled?). */
export async function peekWindow(counters: RateCountersRepository, key: string, limit: number, windowSeconds: number, now: Date): Promise<WindowState> {
  const { count, resetAt } = await counters.peek(key, windowSeconds, now);
  return { ...windowState(count, limit, resetAt, now), allowed: count < limit };
}
