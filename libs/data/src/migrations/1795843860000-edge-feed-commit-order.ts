import type { QueryRunner } from 'typeorm';
import type { ConcurrentIndex, DeclaresConcurrentIndexes } from './concurrent-index';

// The edge's change feed read what changed since a time, and `changed_at` is
// the time of the write, not of its commit: a transaction that committed more
// than the feed's overlap after its write was never read. Each change now
// carries a stamp in the order the database makes changes visible, so a read
// can ask for exactly what the previous read could not see yet.
// PostgreSQL: the writing transaction's id (`pg_current_xact_id()`, xid8). A
// read takes its snapshot; a transaction below the snapshot's xmin has ended,
// and one in its in-progress list (or above xmax) is read by the next read,
// whatever its delay.
// SQLite has one writer at a time, so commits happen in the order of the
// writes: a counter (`change_sequence`) bumped by each stamped row, in the
// writer's own transaction, is in commit order, and a read that saw the
// counter at n has seen every change up to n and none after.
// `changed_at` and its triggers stay: edges of the previous release read them
// until they are replaced.

/** As migration 1760000000800 watches them: the columns whose change the edge must see (an insert always counts). */
const WATCHED: Record<string, string[]> = {
  domains: ['hostname', 'application_id', 'status', 'reference', 'deleted_at'],
  applications: ['slug', 'status', 'limits', 'deleted_at'],
  origins: ['application_id', 'url', 'status'],
  assertion_keys: ['revoked_at'],
  certificates: ['domain_id', 'pem_chain', 'key_sealed', 'not_after'],
};

const TABLES = Object.keys(WATCHED);

const SQLITE_NOW = "strftime('%Y-%m-%d %H:%M:%f', 'now')";

/**
 * SQLite's AFTER triggers that stamp a changed row (they cannot assign NEW), as migration 1760000000800 made
 * them, with `also` done first and set too.
 */
const SQLITE_CHANGED_TRIGGERS = (also: { before: string; set: string } | null = null): string[] =>
  TABLES.flatMap((t) => {
    const body = `BEGIN ${also ? `${also.before} ` : ''}UPDATE ${t} SET changed_at = ${SQLITE_NOW}${also ? `, ${also.set}` : ''} WHERE rowid = NEW.rowid; END`;
    const changedWhen = WATCHED[t]!.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(' OR ');
    return [
      `CREATE TRIGGER tr_${t}_changed_insert AFTER INSERT ON ${t} FOR EACH ROW ${body}`,
      `CREATE TRIGGER tr_${t}_changed_update AFTER UPDATE ON ${t} FOR EACH ROW WHEN ${changedWhen} ${body}`,
    ];
  });

const POSTGRES_MARK = (xid: boolean) =>
  `CREATE OR REPLACE FUNCTION cds_mark_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.changed_at := clock_timestamp();${xid ? ' NEW.changed_xid := pg_current_xact_id();' : ''} RETURN NEW; END $$`;

/** Built after the run, concurrently (concurrent-index.ts). */
const POSTGRES_INDEXES: ConcurrentIndex[] = TABLES.map((t) => ({ name: `ix_${t}_changed_xid`, table: t, definition: '(changed_xid)' }));

const POSTGRES_UP = [
  ...TABLES.map((t) => `ALTER TABLE ${t} ADD COLUMN changed_xid xid8`),
  POSTGRES_MARK(true),
];

const POSTGRES_DOWN = [POSTGRES_MARK(false), ...TABLES.flatMap((t) => [`DROP INDEX IF EXISTS ix_${t}_changed_xid`, `ALTER TABLE ${t} DROP COLUMN changed_xid`])];

const SQLITE_UP = [
  'CREATE TABLE change_sequence (id integer PRIMARY KEY CHECK (id = 1), value integer NOT NULL)',
  'INSERT INTO change_sequence (id, value) VALUES (1, 0)',
  ...TABLES.flatMap((t) => [
    `ALTER TABLE ${t} ADD COLUMN changed_seq integer`,
    `CREATE INDEX ix_${t}_changed_seq ON ${t} (changed_seq)`,
    `DROP TRIGGER tr_${t}_changed_insert`,
    `DROP TRIGGER tr_${t}_changed_update`,
  ]),
  ...SQLITE_CHANGED_TRIGGERS({
    before: 'UPDATE change_sequence SET value = value + 1;',
    set: 'changed_seq = (SELECT value FROM change_sequence)',
  }),
];

const SQLITE_DOWN = [
  ...TABLES.flatMap((t) => [
    `DROP TRIGGER tr_${t}_changed_update`,
    `DROP TRIGGER tr_${t}_changed_insert`,
    `DROP INDEX ix_${t}_changed_seq`,
    `ALTER TABLE ${t} DROP COLUMN changed_seq`,
  ]),
  ...SQLITE_CHANGED_TRIGGERS(),
  'DROP TABLE change_sequence',
];

const isPostgres = (queryRunner: QueryRunner) => queryRunner.connection.options.type === 'postgres';

export class EdgeFeedCommitOrder1795843860000 implements DeclaresConcurrentIndexes {
  readonly name = 'EdgeFeedCommitOrder1795843860000';
  /** PostgreSQL's; SQLite's changed_seq indexes are built by its statements. */
  readonly concurrentIndexes = POSTGRES_INDEXES;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of isPostgres(queryRunner) ? POSTGRES_UP : SQLITE_UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of isPostgres(queryRunner) ? POSTGRES_DOWN : SQLITE_DOWN) await queryRunner.query(statement);
  }
}
