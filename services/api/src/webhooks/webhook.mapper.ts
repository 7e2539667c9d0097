import { isoTimestamp } from '@cds/core';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookSubscriptionRow } from '@cds/data';

export interface WebhookResource {
  id: string;
  url: string;
  events: string[];
  status: string;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
}

export interface DeliveryResource {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  state: string;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  replay_of: string | null;
}

/** One attempt of a delivery (DECISIONS §3). */
export interface AttemptResource {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

export interface AttemptList {
  items: AttemptResource[];
}

export function toWebhookResource(row: WebhookSubscriptionRow): WebhookResource {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    created_at: isoTimestamp(row.createdAt),
    updated_at: isoTimestamp(row.updatedAt),
    revoked_at: isoTimestamp(row.revokedAt),
  };
}

export function toDeliveryResource(row: WebhookDeliveryRow): DeliveryResource {
  return {
    id: row.id,
    subscription_id: row.subscriptionId,
    event_id: row.eventId,
    event_type: row.eventType,
    state: row.state,
    attempts: row.attempts,
    next_attempt_at: isoTimestamp(row.nextAttemptAt),
    last_attempt_at: isoTimestamp(row.lastAttemptAt),
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    created_at: isoTimestamp(row.createdAt),
    delivered_at: isoTimestamp(row.deliveredAt),
    replay_of: row.replayOf,
  };
}

export function toAttemptResource(row: WebhookAttemptRow): AttemptResource {
  return {
    attempt: row.attempt,
    started_at: isoTimestamp(row.startedAt),
    duration_ms: row.durationMs,
    status_code: row.statusCode,
    error: row.error,
  };
}
