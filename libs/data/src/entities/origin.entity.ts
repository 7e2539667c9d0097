import { EntitySchema } from 'typeorm';
import type { OriginRow } from '../repositories/origins.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const originEntity = (t: ColumnTypes) =>
  new EntitySchema<OriginRow>({
    name: ENTITY.origin,
    tableName: 'origins',
    columns: {
      id: { type: t.uuid, primary: true },
      applicationId: { type: t.uuid, name: 'application_id' },
      url: { type: 'varchar' },
      healthPath: { type: 'varchar', name: 'health_path' },
      status: { type: 'varchar' },
      lastVerifiedAt: { type: t.timestamp, name: 'last_verified_at', nullable: true },
      lastError: { type: 'varchar', name: 'last_error', nullable: true },
      createdAt: { type: t.timestamp, name: 'created_at' },
      updatedAt: { type: t.timestamp, name: 'updated_at' },
    },
  });
