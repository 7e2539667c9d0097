// The dispatcher's metrics: delivery attempts by the state they left the
// delivery in, with their duration. Every state is present at zero from the
// start, so a dashboard or an alert finds its series before the first attempt.
import type { DeliveryState } from '@cds/core';
import { dispatcherMetrics } from '@cds/metrics';

/** `failed`: the attempt failed and another follows (the delivery stays pending). */
export const ATTEMPT_STATES = { delivered: 'delivered', failed: 'failed', abandoned: 'abandoned' } as const;
export type AttemptState = (typeof ATTEMPT_STATES)[keyof typeof ATTEMPT_STATES];

export function initDispatcherMetrics(): void {
  const m = dispatcherMetrics();
  for (const state of Object.values(ATTEMPT_STATES)) {
    m.deliveries.inc({ state }, 0);
    m.duration.zero({ state });
  }
}

export function attemptState(state: DeliveryState): AttemptState {
  return state === 'pending' ? ATTEMPT_STATES.failed : state;
}

export function countAttempt(state: DeliveryState, seconds: number): void {
  const m = dispatcherMetrics();
  const label = { state: attemptState(state) };
  m.deliveries.inc(label);
  m.duration.observe(label, seconds);
}
