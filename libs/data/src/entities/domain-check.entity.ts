import { EntitySchema } from 'typeorm';
import type { CheckRow } from '../repositories/domains.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const domainCheckEntity = (t: ColumnTypes) =>
  new EntitySchema<CheckRow>({
    name: ENTITY.domainCheck,
    tableName: 'domain_checks',
    columns: {
      domainId: { type: t.uuid, name: 'domain_id', primary: true },
      type: { type: 'varchar', primary: true },
      status: { type: 'varchar' },
      errorCode: { type: 'varchar', name: 'error_code', nullable: true },
      message: { type: 'text', nullable: true },
      observedAt: { type: t.timestamp, name: 'observed_at', nullable: true },
      nextCheckAt: { type: t.timestamp, name: 'next_check_at', nullable: true },
      failedRuns: { type: 'integer', name: 'failed_runs', default: 0 },
      failingSince: { type: t.timestamp, name: 'failing_since', nullable: true },
      inconclusive: { type: 'boolean', default: false },
    },
  });
