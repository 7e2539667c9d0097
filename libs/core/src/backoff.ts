// The one backoff of the project: the pause after failures in a row doubles
// each time, up to a ceiling. Used by the bus (handler retries, reconnects),
// the outbox relay and the checker's retried certificate writes.

/**
 * The pause after failure number `attempt` (0-based): `baseMs` doubled once per
 * earlier failure, never above `maxMs`.
 */
export function backoffDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  // The exponent is capped so that a long outage neither overflows to Infinity nor makes 0 × Infinity.
  return Math.min(baseMs * 2 ** Math.min(Math.max(attempt, 0), 64), maxMs);
}
