import { EntitySchema } from 'typeorm';
import type { WebhookAttemptRow } from '../repositories/webhook-deliveries.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const webhookAttemptEntity = (t: ColumnTypes) =>
  new EntitySchema<WebhookAttemptRow>({
    name: ENTITY.webhookAttempt,
    tableName: 'webhook_attempts',
    columns: {
      id: { type: t.uuid, primary: true },
      deliveryId: { type: t.uuid, name: 'delivery_id' },
      attempt: { type: 'integer' },
      startedAt: { type: t.timestamp, name: 'started_at' },
      durationMs: { type: 'integer', name: 'duration_ms' },
      statusCode: { type: 'integer', name: 'status_code', nullable: true },
      error: { type: 'varchar', nullable: true },
    },
  });
