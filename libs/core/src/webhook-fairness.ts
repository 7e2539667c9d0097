// Fairness between subscriptions and applications (DECISIONS §10): how many
// attempts of one subscription and of one application may run, when a
// subscription is cooling, and when a replay would queue too much.

/** A subscription whose last this-many attempts all failed is cooling: one attempt at a time until one succeeds. */
export const WEBHOOK_COOLING_AFTER_FAILURES = 5;
/**
 * A subscription is cooling too while at least WEBHOOK_COOLING_RECENT_FAILURES
 * of its last WEBHOOK_COOLING_RECENT_ATTEMPTS attempts failed (80 %): a
 * receiver that fails most attempts, with a success now and then, never fails
 * 5 in a row.
 */
export const WEBHOOK_COOLING_RECENT_ATTEMPTS = 20;
export const WEBHOOK_COOLING_RECENT_FAILURES = 16;

/** Retry-After of a replay refused because of the pending limit. */
export const WEBHOOK_PENDING_RETRY_AFTER_SECONDS = 60;

/** A recent attempt in `CoolingState.recentOutcomes`. */
export const ATTEMPT_MARKS = { failed: 'f', delivered: 's' } as const;

/** What decides whether a subscription is cooling, as its attempts leave it. */
export interface CoolingState {
  /** Attempts that failed in a row, up to the last one. */
  failureStreak: number;
  /**
   * Its last attempts (at most WEBHOOK_COOLING_RECENT_ATTEMPTS), oldest first,
   * one ATTEMPT_MARKS letter each. Successes older than the oldest failure kept
   * are left out (they count nothing), so a subscription whose recent attempts
   * all succeeded has none here, and a success then changes nothing to write.
   * The failures of a streak of 5 or more leave with the success that ends it.
   */
  recentOutcomes: string;
}

/** A subscription with no failure to remember. */
export const NOT_COOLING: CoolingState = { failureStreak: 0, recentOutcomes: '' };

/** Failed attempts among the recent ones. */
export function recentFailures(recentOutcomes: string): number {
  let failures = 0;
  for (const mark of recentOutcomes) if (mark === ATTEMPT_MARKS.failed) failures += 1;
  return failures;
}

export function isCooling(state: CoolingState): boolean {
  return state.failureStreak >= WEBHOOK_COOLING_AFTER_FAILURES || recentFailures(state.recentOutcomes) >= WEBHOOK_COOLING_RECENT_FAILURES;
}

/** The last WEBHOOK_COOLING_RECENT_ATTEMPTS marks, from the oldest failure among them. */
function keptOutcomes(outcomes: string): string {
  const recent = outcomes.slice(-WEBHOOK_COOLING_RECENT_ATTEMPTS);
  const firstFailure = recent.indexOf(ATTEMPT_MARKS.failed);
  return firstFailure < 0 ? '' : recent.slice(firstFailure);
}

/**
 * The state after one more attempt: it joins the recent ones, the oldest
 * dropping out. A success after 5 or more failures in a row ends cooling
 * (DECISIONS §10: the receiver is back), so the failures of that streak leave
 * the recent attempts with it: what is left (at most 15 failures) cannot keep
 * the subscription cooling.
 */
export function coolingAfter(state: CoolingState, delivered: boolean): CoolingState {
  if (!delivered) return { failureStreak: state.failureStreak + 1, recentOutcomes: keptOutcomes(`${state.recentOutcomes}${ATTEMPT_MARKS.failed}`) };
  const ended = state.failureStreak >= WEBHOOK_COOLING_AFTER_FAILURES ? state.failureStreak : 0;
  const before = state.recentOutcomes.slice(0, Math.max(0, state.recentOutcomes.length - ended));
  return { failureStreak: 0, recentOutcomes: keptOutcomes(`${before}${ATTEMPT_MARKS.delivered}`) };
}

export function sameCoolingState(a: CoolingState, b: CoolingState): boolean {
  return a.failureStreak === b.failureStreak && a.recentOutcomes === b.recentOutcomes;
}

/** Attempts of one subscription that one dispatcher runs at once: `maxInFlight`, or one while it is cooling. */
export function subscriptionSlots(state: CoolingState, maxInFlight: number): number {
  return isCooling(state) ? 1 : maxInFlight;
}

/**
 * Attempts of one application's subscriptions together that one dispatcher
 * runs at once: half its slots (at least one), so that one application's
 * many subscriptions always leave the other half to the others.
 */
export function applicationSlots(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 2));
}

/** A replay of `adding` deliveries is refused when it would raise the application's pending deliveries above `limit` (one that adds none raises nothing). */
export function exceedsPendingLimit(pending: number, adding: number, limit: number): boolean {
  return adding > 0 && pending + adding > limit;
}
