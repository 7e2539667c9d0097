import { EntitySchema } from 'typeorm';
import type { WebhookSecretRow } from '../repositories/webhook-subscriptions.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const webhookSecretEntity = (t: ColumnTypes) =>
  new EntitySchema<WebhookSecretRow>({
    name: ENTITY.webhookSecret,
    tableName: 'webhook_secrets',
    columns: {
      id: { type: t.uuid, primary: true },
      subscriptionId: { type: t.uuid, name: 'subscription_id' },
      secretSealed: { type: 'varchar', name: 'secret_sealed' },
      createdAt: { type: t.timestamp, name: 'created_at' },
      expiresAt: { type: t.timestamp, name: 'expires_at', nullable: true },
    },
  });
