import { EntitySchema } from 'typeorm';
import type { DomainRow } from '../repositories/domains.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const domainEntity = (t: ColumnTypes) =>
  new EntitySchema<DomainRow>({
    name: ENTITY.domain,
    tableName: 'domains',
    columns: {
      id: { type: t.uuid, primary: true },
      applicationId: { type: t.uuid, name: 'application_id' },
      hostname: { type: 'varchar' },
      reference: { type: 'varchar' },
      status: { type: 'varchar' },
      challengeToken: { type: 'varchar', name: 'challenge_token' },
      metadata: { type: 'simple-json' },
      redirectTo: { type: 'varchar', name: 'redirect_to', nullable: true },
      createdAt: { type: t.timestamp, name: 'created_at' },
      updatedAt: { type: t.timestamp, name: 'updated_at' },
      deletedAt: { type: t.timestamp, name: 'deleted_at', nullable: true },
      nextCheckAt: { type: t.timestamp, name: 'next_check_at', nullable: true },
    },
  });
