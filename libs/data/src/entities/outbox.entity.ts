import { EntitySchema } from 'typeorm';
import type { OutboxRow } from '../repositories/outbox.types';
import { bigintAsNumber, type ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const outboxEntity = (t: ColumnTypes) =>
  new EntitySchema<OutboxRow>({
    name: ENTITY.outbox,
    tableName: 'outbox',
    columns: {
      id: { type: t.uuid, primary: true },
      // Assigned by the database (bigserial / INTEGER PRIMARY KEY AUTOINCREMENT).
      seq: { type: t.bigint, insert: false, update: false, transformer: bigintAsNumber },
      routingKey: { type: 'varchar', name: 'routing_key' },
      payload: { type: 'simple-json' },
      createdAt: { type: t.timestamp, name: 'created_at' },
      publishedAt: { type: t.timestamp, name: 'published_at', nullable: true },
      attempts: { type: 'integer' },
      setAsideAt: { type: t.timestamp, name: 'set_aside_at', nullable: true },
      setAsideReason: { type: 'text', name: 'set_aside_reason', nullable: true },
    },
  });
