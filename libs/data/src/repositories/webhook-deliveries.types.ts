// Webhook deliveries and their attempts (migrations 1760000000200, 1760000000700, 1795843800000),
// as the API reads them; the dispatcher's lease of them is webhook-delivery-queue.types.ts.
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

/** Deliveries as rows: inserted (fan-out, replays), read by the API with their attempts, abandoned on revocation. */
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
  attemptsOf(deliveryId: string): Promise<WebhookAttemptRow[]>; // oldest first
}
