import type { RateCountersRepository } from '@cds/data';
import { peekWindow, secondsUntil } from './fixed-window';

/**
 * The invalid-credential throttles (operator token and /v1 credentials).
 *
 * A request's answer may depend on its credential only when the address had
 * fewer than `limit` failures before it. "Before" must be one order that every
 * attempt, valid or not, takes its place in; reading the count first and adding
 * to it after the check let a burst of parallel guesses all read a low count, so
 * every one of them was answered. Here the credential is checked first and its
 * answer withheld until `settleAttempt` has counted the attempt and read the
 * failures before it in one atomic upsert (the row lock orders concurrent ones):
 * a failure adds 1, a success adds 0 but still takes its place in the order.
 * Whatever the burst, at most `limit` failures per window are answered 401 and
 * the rest 429; a valid credential is refused only once `limit` failures precede
 * it, exactly as the contract says.
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
 * a refusal here is the one `settleAttempt` would give.
 */
export async function peekThrottle(counters: RateCountersRepository, key: string, limit: number, now: Date): Promise<ThrottleVerdict> {
  const window = await peekWindow(counters, key, limit, FAILURE_WINDOW_SECONDS, now);
  return { admitted: window.allowed, retryAfterSeconds: window.resetSeconds };
}

/** After the check: counts the attempt (a failure adds 1) and admits it when fewer than `limit` failures came before it. */
export async function settleAttempt(counters: RateCountersRepository, key: string, limit: number, failed: boolean, now: Date): Promise<ThrottleVerdict> {
  const { failuresBefore, resetAt } = await counters.countAttempt(key, FAILURE_WINDOW_SECONDS, now, failed);
  return { admitted: failuresBefore < limit, retryAfterSeconds: secondsUntil(resetAt, now) };
}
