// Webhook deliveries and their attempts (migrations 1760000000200, 1760000000700, 1795843800000).
import type { DeliveryState } from '@cds/core';

export interface WebhookDeliveryRow {
  id: string;
  applicationId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  payload: string; // the exact JSON body that is signed and sent
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date | null; // pending: when it is due (while an attempt runs, when its lease ends)
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  replayOf: string | null; // the delivery this one replays; null for the event's original delivery
  leaseId: string | null; // set while a dispatcher runs an attempt
}

export interface WebhookAttemptRow {
  id: string;
  deliveryId: string;
  attempt: number; // 1..8
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null; // null when it delivered
}

export interface WebhookDeliveryFilter {
  state?: DeliveryState;
  limit: number;
  offset: number;
}

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

export interface WebhookDeliveriesRepository {
  /**
   * Inserts the rows; an original delivery (replayOf null) of an event its
   * subscription already has is skipped, so a redelivered message creates
   * nothing twice. Returns the ids inserted.
   */
  insertMany(rows: WebhookDeliveryRow[]): Promise<string[]>;
  find(applicationId: string, subscriptionId: string, id: string): Promise<WebhookDeliveryRow | null>;
  list(applicationId: string, subscriptionId: string, filter: WebhookDeliveryFilter): Promise<WebhookDeliveryRow[]>; // newest first
  countSince(applicationId: string, subscriptionId: string, since: Date): Promise<number>;
  listSince(applicationId: string, subscriptionId: string, since: Date, limit: number): Promise<WebhookDeliveryRow[]>; // oldest first
  /** Pending deliveries of the subscription become abandoned with `lastError`; returns how many. */
  abandonPending(subscriptionId: string, lastError: string): Promise<number>;
  /** Pending deliveries of the application, all its subscriptions (the replay limit). */
  countPending(applicationId: string): Promise<number>;
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
  attemptsOf(deliveryId: string): Promise<WebhookAttemptRow[]>; // oldest first
  /** Gives leased deliveries back, due at `at` (a dispatcher stopping before it sent them). */
  releaseLeases(leases: Array<{ deliveryId: string; leaseId: string }>, at: Date): Promise<void>;
}
