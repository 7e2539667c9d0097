// The dispatcher's metrics: delivery attempts by the state they left the
// delivery in, with their duration; the fairness ones (DECISIONS §10): cooling
// subscriptions, read from the database at scrape time, and deliveries that
// waited for their subscription's turn. Every state and reason is present at
// zero from the start, so a dashboard or an alert finds its series before the
// first attempt.
import type { DeliveryState } from '@cds/core';
import type { DataStore } from '@cds/data';
import { dispatcherFairnessMetrics, dispatcherMetrics, setCoolingCollect } from '@cds/metrics';
import { DEFERRAL_REASONS, type DeferralReason } from './fair-queue';

/** `failed`: the attempt failed and another follows (the delivery stays pending). */
export const ATTEMPT_STATES = { delivered: 'delivered', failed: 'failed', abandoned: 'abandoned' } as const;
export type AttemptState = (typeof ATTEMPT_STATES)[keyof typeof ATTEMPT_STATES];

export function initDispatcherMetrics(store: DataStore): void {
  const m = dispatcherMetrics();
  for (const state of Object.values(ATTEMPT_STATES)) {
    m.deliveries.inc({ state }, 0);
    m.duration.zero({ state });
  }
  const fairness = dispatcherFairnessMetrics();
  for (const reason of Object.values(DEFERRAL_REASONS)) fairness.deferred.inc({ reason }, 0);
  setCoolingCollect(async () => {
    try {
      fairness.cooling.set(await store.run((r) => r.webhookSubscriptions.countCooling()));
    } catch {
      // The database is away: the gauge keeps its last value, and /metrics keeps answering.
    }
  });
}

export function countDeferred(count: number, reason: DeferralReason): void {
  dispatcherFairnessMetrics().deferred.inc({ reason }, count);
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
