import { EntitySchema } from 'typeorm';
import type { WebhookDeliveryRow } from '../repositories/webhook-deliveries.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const webhookDeliveryEntity = (t: ColumnTypes) =>
  new EntitySchema<WebhookDeliveryRow>({
    name: ENTITY.webhookDelivery,
    tableName: 'webhook_deliveries',
    columns: {
      id: { type: t.uuid, primary: true },
      applicationId: { type: t.uuid, name: 'application_id' },
      subscriptionId: { type: t.uuid, name: 'subscription_id' },
      eventId: { type: t.uuid, name: 'event_id' },
      eventType: { type: 'varchar', name: 'event_type' },
      payload: { type: 'varchar' },
      state: { type: 'varchar' },
      attempts: { type: 'integer' },
      nextAttemptAt: { type: t.timestamp, name: 'next_attempt_at', nullable: true },
      lastAttemptAt: { type: t.timestamp, name: 'last_attempt_at', nullable: true },
      lastStatusCode: { type: 'integer', name: 'last_status_code', nullable: true },
      lastError: { type: 'varchar', name: 'last_error', nullable: true },
      createdAt: { type: t.timestamp, name: 'created_at' },
      deliveredAt: { type: t.timestamp, name: 'delivered_at', nullable: true },
      replayOf: { type: t.uuid, name: 'replay_of', nullable: true },
      leaseId: { type: t.uuid, name: 'lease_id', nullable: true },
    },
  });
