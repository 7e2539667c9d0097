import { EntitySchema } from 'typeorm';
import type { CredentialRow } from '../repositories/credentials.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const credentialEntity = (t: ColumnTypes) =>
  new EntitySchema<CredentialRow>({
    name: ENTITY.credential,
    tableName: 'credentials',
    columns: {
      id: { type: t.uuid, primary: true },
      applicationId: { type: t.uuid, name: 'application_id' },
      name: { type: 'varchar', nullable: true },
      prefix: { type: 'varchar' },
      keyHash: { type: 'varchar', name: 'key_hash' },
      revokedAt: { type: t.timestamp, name: 'revoked_at', nullable: true },
      expiresAt: { type: t.timestamp, name: 'expires_at', nullable: true },
      replacedById: { type: t.uuid, name: 'replaced_by_id', nullable: true },
      createdAt: { type: t.timestamp, name: 'created_at' },
      lastUsedAt: { type: t.timestamp, name: 'last_used_at', nullable: true },
    },
  });
