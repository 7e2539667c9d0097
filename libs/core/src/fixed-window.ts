// Fixed-window counting: what a count read from a window means for a request.
// The counts are kept in the database (libs/data's rate counters), so every
// replica shares one budget.

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
