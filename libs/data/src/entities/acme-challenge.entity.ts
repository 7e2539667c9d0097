import { EntitySchema } from 'typeorm';
import type { AcmeChallengeRow } from '../repositories/acme-challenges.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const acmeChallengeEntity = (t: ColumnTypes) =>
  new EntitySchema<AcmeChallengeRow>({
    name: ENTITY.acmeChallenge,
    tableName: 'acme_challenges',
    columns: {
      token: { type: 'varchar', primary: true },
      hostname: { type: 'varchar' },
      keyAuthorization: { type: 'text', name: 'key_authorization' },
      createdAt: { type: t.timestamp, name: 'created_at' },
    },
  });
