import { EntitySchema } from 'typeorm';
import type { ApplicationRow } from '../repositories/applications.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const applicationEntity = (t: ColumnTypes) =>
  new EntitySchema<ApplicationRow>({
    name: ENTITY.application,
    tableName: 'applications',
    columns: {
      id: { type: t.uuid, primary: true },
      slug: { type: 'varchar' },
      name: { type: 'varchar' },
      status: { type: 'varchar' },
      plan: { type: 'varchar' },
      contactEmail: { type: 'varchar', name: 'contact_email', nullable: true },
      limits: { type: 'simple-json' },
      createdAt: { type: t.timestamp, name: 'created_at' },
      updatedAt: { type: t.timestamp, name: 'updated_at' },
      deletedAt: { type: t.timestamp, name: 'deleted_at', nullable: true },
      liveDomains: { type: 'integer', name: 'live_domains', default: 0 },
    },
  });
