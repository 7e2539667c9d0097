import { EntitySchema } from 'typeorm';
import type { AssertionKeyRow } from '../repositories/assertion-keys.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const assertionKeyEntity = (t: ColumnTypes) =>
  new EntitySchema<AssertionKeyRow>({
    name: ENTITY.assertionKey,
    tableName: 'assertion_keys',
    columns: {
      kid: { type: 'varchar', primary: true },
      applicationId: { type: t.uuid, name: 'application_id' },
      secretSealed: { type: 'varchar', name: 'secret_sealed' },
      createdAt: { type: t.timestamp, name: 'created_at' },
      revokedAt: { type: t.timestamp, name: 'revoked_at', nullable: true },
    },
  });
