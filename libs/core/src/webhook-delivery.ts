// Delivery rules of the contract: statuses, attempts, retry delays, what an answer means.

export const SUBSCRIPTION_STATUSES = ['active', 'revoked'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const DELIVERY_STATES = ['pending', 'delivered', 'abandoned'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export const WEBHOOK_MAX_ATTEMPTS = 8;
/** How long a replaced secret keeps signing after the rotation that replaced it. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** At most this much of a receiver's answer is read. */
export const WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024;
export const WEBHOOK_USER_AGENT = 'custom-domain-service-webhooks/1';
/** `last_error` of the deliveries a revocation abandoned. */
export const REVOKED_LAST_ERROR = 'subscription revoked';
/** At most this many deliveries are replayed by one replay-since call. */
export const WEBHOOK_REPLAY_SINCE_MAX = 1000;

/**
 * Milliseconds to wait before the next attempt once `attemptsMade` attempts
 * failed, or null when none is left. `schedule` holds the delays before
 * attempts 2, 3, …; when it is shorter than needed its last delay repeats.
 */
export function retryDelayAfter(attemptsMade: number, schedule: readonly number[], maxAttempts = WEBHOOK_MAX_ATTEMPTS): number | null {
  if (attemptsMade >= maxAttempts) return null;
  if (schedule.length === 0) throw new Error('The retry schedule is empty.');
  return schedule[Math.min(Math.max(attemptsMade, 1), schedule.length) - 1] as number;
}

/** Any 2xx delivers; everything else (3xx included: redirects are not followed) is a failed attempt, with why. */
export function answerOutcome(status: number): { delivered: true } | { delivered: false; error: string } {
  if (status >= 200 && status < 300) return { delivered: true };
  if (status >= 300 && status < 400) return { delivered: false, error: `receiver answered HTTP ${status}; redirects are not followed` };
  return { delivered: false, error: `receiver answered HTTP ${status}` };
}
