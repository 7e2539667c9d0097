import { EntitySchema } from 'typeorm';
import type { WebhookSubscriptionRow } from '../repositories/webhook-subscriptions.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const webhookSubscriptionEntity = (t: ColumnTypes) =>
  new EntitySchema<WebhookSubscriptionRow>({
    name: ENTITY.webhookSubscription,
    tableName: 'webhook_subscriptions',
    columns: {
      id: { type: t.uuid, primary: true },
      applicationId: { type: t.uuid, name: 'application_id' },
      url: { type: 'varchar' },
      events: { type: 'simple-json' },
      status: { type: 'varchar' },
      createdAt: { type: t.timestamp, name: 'created_at' },
      updatedAt: { type: t.timestamp, name: 'updated_at' },
      revokedAt: { type: t.timestamp, name: 'revoked_at', nullable: true },
    },
  });
