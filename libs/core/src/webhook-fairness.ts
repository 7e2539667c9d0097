// Fairness between subscriptions and applications (DECISIONS §10): how many
// attempts of one subscription may run, when a subscription is cooling, and
// when a replay would queue too much.

/** A subscription whose last this-many attempts all failed is cooling: one attempt at a time until one succeeds. */
export const WEBHOOK_COOLING_AFTER_FAILURES = 5;

/** Retry-After of a replay refused because of the pending limit. */
export const WEBHOOK_PENDING_RETRY_AFTER_SECONDS = 60;

export function isCooling(consecutiveFailures: number): boolean {
  return consecutiveFailures >= WEBHOOK_COOLING_AFTER_FAILURES;
}

/** The failure streak after one more attempt: a success ends it. */
export function failureStreakAfter(consecutiveFailures: number, delivered: boolean): number {
  return delivered ? 0 : consecutiveFailures + 1;
}

/** Attempts of one subscription that one dispatcher runs at once: `maxInFlight`, or one while it is cooling. */
export function subscriptionSlots(consecutiveFailures: number, maxInFlight: number): number {
  return isCooling(consecutiveFailures) ? 1 : maxInFlight;
}

/** A replay of `adding` deliveries is refused when it would raise the application's pending deliveries above `limit` (one that adds none raises nothing). */
export function exceedsPendingLimit(pending: number, adding: number, limit: number): boolean {
  return adding > 0 && pending + adding > limit;
}
