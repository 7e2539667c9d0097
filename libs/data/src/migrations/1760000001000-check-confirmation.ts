import type { QueryRunner } from 'typeorm';
import { createDeclaredIndexes, dropDeclaredIndexes, type ConcurrentIndex, type DeclaresConcurrentIndexes } from './concurrent-index';

// DECISIONS §11 and §15. A `ready` domain leaves `ready` only on a confirmed
// failure: each check row keeps its streak of failed runs (how many, since
// when, and whether any of them was inconclusive), and each domain counts the
// runs since it entered its status (the attention schedule is counted from
// there). The last ten runs of each domain are kept for the operator's lookup,
// one compact row each in a ring of ten slots (the run's number modulo ten), so
// a run overwrites the oldest and no delete is needed. The partial index finds
// the domains being confirmed (a gauge) without reading every check row.

/** Runs kept per domain (DECISIONS §15). */
export const RECENT_RUNS_KEPT = 10;

/** The column types that differ between the databases. */
interface Types {
  uuid: string;
  timestamp: string;
  smallint: string;
  falseValue: string;
}

const up = (t: Types) => [
  'ALTER TABLE domain_checks ADD COLUMN failed_runs integer NOT NULL DEFAULT 0',
  `ALTER TABLE domain_checks ADD COLUMN failing_since ${t.timestamp}`,
  `ALTER TABLE domain_checks ADD COLUMN inconclusive boolean NOT NULL DEFAULT ${t.falseValue}`,
  'ALTER TABLE domains ADD COLUMN status_runs integer NOT NULL DEFAULT 0',
  `CREATE TABLE domain_check_runs (
    domain_id ${t.uuid} NOT NULL,
    slot ${t.smallint} NOT NULL,
    started_at ${t.timestamp} NOT NULL,
    duration_ms integer NOT NULL,
    trigger varchar(16) NOT NULL,
    status_before varchar(32) NOT NULL,
    status_after varchar(32) NOT NULL,
    checks text NOT NULL,
    CONSTRAINT pk_domain_check_runs PRIMARY KEY (domain_id, slot),
    CONSTRAINT fk_domain_check_runs_domain FOREIGN KEY (domain_id) REFERENCES domains (id) ON DELETE CASCADE,
    CONSTRAINT ck_domain_check_runs_slot CHECK (slot >= 0 AND slot < ${RECENT_RUNS_KEPT})
  )`,
];

/** Built concurrently on PostgreSQL, after the run (concurrent-index.ts). */
const INDEXES: ConcurrentIndex[] = [{ name: 'ix_domain_checks_failing', table: 'domain_checks', definition: '(domain_id) WHERE failed_runs > 0' }];

const POSTGRES_UP = up({ uuid: 'uuid', timestamp: 'timestamptz', smallint: 'smallint', falseValue: 'false' });
const SQLITE_UP = up({ uuid: 'varchar(36)', timestamp: 'datetime', smallint: 'integer', falseValue: '0' });

const DOWN = [
  'DROP TABLE domain_check_runs',
  'ALTER TABLE domains DROP COLUMN status_runs',
  'ALTER TABLE domain_checks DROP COLUMN inconclusive',
  'ALTER TABLE domain_checks DROP COLUMN failing_since',
  'ALTER TABLE domain_checks DROP COLUMN failed_runs',
];

const isPostgres = (queryRunner: QueryRunner) => queryRunner.connection.options.type === 'postgres';

export class CheckConfirmation1760000001000 implements DeclaresConcurrentIndexes {
  readonly name = 'CheckConfirmation1760000001000';
  readonly concurrentIndexes = INDEXES;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of isPostgres(queryRunner) ? POSTGRES_UP : SQLITE_UP) await queryRunner.query(statement);
    await createDeclaredIndexes(queryRunner, INDEXES);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDeclaredIndexes(queryRunner, INDEXES);
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
