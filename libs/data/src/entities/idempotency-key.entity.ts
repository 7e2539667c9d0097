import { EntitySchema } from 'typeorm';
import type { IdempotencyRow } from '../repositories/idempotency.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const idempotencyKeyEntity = (t: ColumnTypes) =>
  new EntitySchema<IdempotencyRow>({
    name: ENTITY.idempotencyKey,
    tableName: 'idempotency_keys',
    columns: {
      applicationId: { type: t.uuid, name: 'application_id', primary: true },
      key: { type: 'varchar', primary: true },
      requestHash: { type: 'varchar', name: 'request_hash' },
      state: { type: 'varchar' },
      responseStatus: { type: 'integer', name: 'response_status', nullable: true },
      responseBody: { type: 'text', name: 'response_body', nullable: true },
      createdAt: { type: t.timestamp, name: 'created_at' },
      expiresAt: { type: t.timestamp, name: 'expires_at' },
    },
  });
