// The dispatcher's lease queue of webhook deliveries (DECISIONS §10).
import type { DeliveryState } from '@cds/core';
import type { WebhookAttemptRow, WebhookDeliveryRow } from './webhook-deliveries.types';

/** The outcome of one attempt, written only while the attempt's lease still holds. */
export interface WebhookAttemptResult {
  leaseId: string;
  attempt: WebhookAttemptRow;
  /** State after the attempt (a delivery revoked meanwhile stays `abandoned`). */
  state: DeliveryState;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

/** How one lease shares the due deliveries out between subscriptions (DECISIONS §10). */
export interface LeaseShares {
  /** Deliveries of one subscription the leasing dispatcher may hold, running or waiting for a slot. */
  perSubscription: number;
  /** What it holds already, by subscription id. */
  held: ReadonlyMap<string, number>;
  /** Deliveries of one application's subscriptions together it may hold (no cap of its own when absent). */
  perApplication?: number;
  /** What it holds already, by application id. */
  heldByApplication?: ReadonlyMap<string, number>;
}

/** Due deliveries leased to one dispatcher at a time, and what its attempts did. */
export interface WebhookDeliveryQueueRepository {
  /**
   * Leases up to `limit` pending deliveries due at `now` to `leaseId` until
   * `leaseUntil` (their next_attempt_at), so no other dispatcher takes them
   * meanwhile (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one statement).
   * Subscriptions are served in turn, the one whose earliest due delivery
   * waited longest first, each its earliest due deliveries: at most
   * `shares.perSubscription` minus what the caller holds of it, and of one
   * application's subscriptions together at most `shares.perApplication`
   * minus what the caller holds of them (no such caps without `shares`). A
   * cooling subscription gets one delivery, and only while none of its
   * deliveries is leased by any dispatcher.
   */
  claimDue(now: Date, limit: number, leaseId: string, leaseUntil: Date, shares?: LeaseShares): Promise<WebhookDeliveryRow[]>;
  /**
   * For each result whose lease still holds: the attempt row and the delivery's
   * new state. Returns the ids of the deliveries written (a lost lease writes nothing).
   * Every result, written or not (the receiver saw the attempt either way),
   * also moves its subscription's cooling state (libs/core coolingAfter), in
   * the order of `results`.
   */
  recordAttempts(results: WebhookAttemptResult[]): Promise<string[]>;
  /** Gives leased deliveries back, due at `at` (a dispatcher stopping before it sent them). */
  releaseLeases(leases: Array<{ deliveryId: string; leaseId: string }>, at: Date): Promise<void>;
}
