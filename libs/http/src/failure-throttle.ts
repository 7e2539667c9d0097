import { secondsUntil } from '@cds/core';
import type { RateCountersRepository } from '@cds/data';

/**
 * The invalid-credential throttles (operator token and /v1 credentials).
 *
 * A request's answer may depend on its credential only when the address had
 * fewer than `limit` failures before it. Reading the count first and adding to
 * it after the check let a burst of parallel guesses all read a low count, so
 * every one of them was answered. Here a failed check's answer is withheld until
 * `countFailure` has added it and read the failures before it in one atomic
 * upsert (the row lock orders concurrent ones): whatever the burst, at most
 * `limit` failures per window are answered 401 and the rest 429. A success
 * writes nothing: the read before the check found fewer than `limit` failures,
 * and that read is its place in the order, so a valid credential is refused
 * only once `limit` failures precede it, exactly as the contract says, and a
 * valid request costs no write here.
 *
 * Reserving a slot before the check and refunding it on success would give the
 * same bound, but a success would hold a slot while it is checked: parallel valid
 * requests from one address (many clients behind one NAT) would be refused with
 * fewer than `limit` failures counted, which the contract does not allow.
 */
export const FAILURE_WINDOW_SECONDS = 60;

export interface ThrottleVerdict {
  /** false: answer 429 whatever the credential was. */
  admitted: boolean;
  /** Whole seconds until the window resets (Retry-After). */
  retryAfterSeconds: number;
}

/**
 * Before any check: is the address already at its limit? A read, so that a flood
 * from a throttled address costs no writes. Failures only grow within a window, so
 * a refusal here is the one `countFailure` would give.
 */
export async function peekThrottle(counters: RateCountersRepository, key: string, limit: number, now: Date): Promise<ThrottleVerdict> {
  const { count, resetAt } = await counters.peek(key, FAILURE_WINDOW_SECONDS, now);
  return { admitted: count < limit, retryAfterSeconds: secondsUntil(resetAt, now) };
}

/** After a failed check: counts the failure and admits its answer when fewer than `limit` failures came before it. */
export async function countFailure(counters: RateCountersRepository, key: string, limit: number, now: Date): Promise<ThrottleVerdict> {
  const { failuresBefore, resetAt } = await counters.countAttempt(key, FAILURE_WINDOW_SECONDS, now, true);
  return { admitted: failuresBefore < limit, retryAfterSeconds: secondsUntil(resetAt, now) };
}
