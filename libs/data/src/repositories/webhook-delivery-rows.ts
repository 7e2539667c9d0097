// The columns of webhook_deliveries and a raw row's mapping back, shared by the
// deliveries repository (inserts) and the dispatcher's lease queue (RETURNING).
import type { WebhookDeliveryRow } from './webhook-deliveries.types';
import type { Column } from './rows-insert';
import { nullableTimestampFromDb, numberFromDb, timestampFromDb, type RawRow } from '../sql';

export const DELIVERY_COLUMNS: Array<Column<WebhookDeliveryRow>> = [
  ['id', 'id', 'uuid'], ['applicationId', 'application_id', 'uuid'], ['subscriptionId', 'subscription_id', 'uuid'], ['eventId', 'event_id', 'uuid'],
  ['eventType', 'event_type', 'varchar'], ['payload', 'payload', 'text'], ['state', 'state', 'varchar'], ['attempts', 'attempts', 'integer'],
  ['nextAttemptAt', 'next_attempt_at', 'timestamptz'], ['lastAttemptAt', 'last_attempt_at', 'timestamptz'], ['lastStatusCode', 'last_status_code', 'integer'],
  ['lastError', 'last_error', 'text'], ['createdAt', 'created_at', 'timestamptz'], ['deliveredAt', 'delivered_at', 'timestamptz'], ['replayOf', 'replay_of', 'uuid'],
  ['leaseId', 'lease_id', 'uuid'],
];
/** Rows per INSERT or UPDATE statement (parameters stay far below both databases' limits). */
export const DELIVERY_CHUNK = 200;

export function deliveryFromDb(raw: RawRow): WebhookDeliveryRow {
  return {
    id: raw.id as string,
    applicationId: raw.application_id as string,
    subscriptionId: raw.subscription_id as string,
    eventId: raw.event_id as string,
    eventType: raw.event_type as string,
    payload: raw.payload as string,
    state: raw.state as WebhookDeliveryRow['state'],
    attempts: numberFromDb(raw.attempts),
    nextAttemptAt: nullableTimestampFromDb(raw.next_attempt_at),
    lastAttemptAt: nullableTimestampFromDb(raw.last_attempt_at),
    lastStatusCode: raw.last_status_code === null ? null : numberFromDb(raw.last_status_code),
    lastError: raw.last_error as string | null,
    createdAt: timestampFromDb(raw.created_at),
    deliveredAt: nullableTimestampFromDb(raw.delivered_at),
    replayOf: raw.replay_of as string | null,
    leaseId: raw.lease_id as string | null,
  };
}
