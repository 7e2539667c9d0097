import { randomUUID } from 'node:crypto';
import type { WebhookDeliveryRow } from './repositories/webhook-deliveries.types';

export type PendingDeliveryFields = Pick<WebhookDeliveryRow, 'applicationId' | 'subscriptionId' | 'eventId' | 'eventType' | 'payload' | 'replayOf'>;

/** A new delivery row, pending and due at `now`: what fan-out and replay both insert. */
export function pendingDelivery(fields: PendingDeliveryFields, now: Date): WebhookDeliveryRow {
  return {
    id: randomUUID(),
    ...fields,
    state: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lastAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: now,
    deliveredAt: null,
    leaseId: null,
  };
}
