import type { QueryRunner } from 'typeorm';
import type { ConcurrentIndex, DeclaresConcurrentIndexes } from './concurrent-index';

// The edge's change feed (DECISIONS §5, issue 18): each edge asks once a second
// what changed since its last read instead of reloading every cached hostname.
// `changed_at` is written by the database itself, with its own clock, and only
// when something the edge serves from changes: `updated_at` is the writers'
// clock, is bumped by every check of a domain, and not every write sets it.
// Hard deletes need no mark: a domain is soft-deleted first (its row changes),
// and only inactive origins are deleted. The column stays out of the entities:
// nothing but the feed reads it.

/** Per table: the columns whose change the edge must see (an insert always counts). */
const WATCHED: Record<string, string[]> = {
  domains: ['hostname', 'application_id', 'status', 'reference', 'deleted_at'],
  applications: ['slug', 'status', 'limits', 'deleted_at'],
  origins: ['application_id', 'url', 'status'],
  assertion_keys: ['revoked_at'],
  certificates: ['domain_id', 'pem_chain', 'key_sealed', 'not_after'],
};

const TABLES = Object.keys(WATCHED);

const changedWhen = (table: string, distinct: string): string => WATCHED[table]!.map((c) => `OLD.${c} ${distinct} NEW.${c}`).join(' OR ');

/** PostgreSQL builds these after the run, concurrently (concurrent-index.ts); SQLite's statements below build them. */
const POSTGRES_INDEXES: ConcurrentIndex[] = TABLES.map((t) => ({ name: `ix_${t}_changed`, table: t, definition: '(changed_at)' }));

const POSTGRES_UP = [
  "CREATE FUNCTION cds_mark_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.changed_at := clock_timestamp(); RETURN NEW; END $$",
  ...TABLES.flatMap((t) => [
    `ALTER TABLE ${t} ADD COLUMN changed_at timestamptz`,
    `CREATE TRIGGER tr_${t}_changed_insert BEFORE INSERT ON ${t} FOR EACH ROW EXECUTE FUNCTION cds_mark_changed()`,
    `CREATE TRIGGER tr_${t}_changed_update BEFORE UPDATE ON ${t} FOR EACH ROW WHEN (${changedWhen(t, 'IS DISTINCT FROM')}) EXECUTE FUNCTION cds_mark_changed()`,
  ]),
];

const POSTGRES_DOWN = [
  ...TABLES.flatMap((t) => [
    `DROP TRIGGER tr_${t}_changed_update ON ${t}`,
    `DROP TRIGGER tr_${t}_changed_insert ON ${t}`,
    `DROP INDEX IF EXISTS ix_${t}_changed`,
    `ALTER TABLE ${t} DROP COLUMN changed_at`,
  ]),
  'DROP FUNCTION cds_mark_changed()',
];

/** The text TypeORM keeps SQLite timestamps in (UTC, milliseconds). */
const SQLITE_NOW = "strftime('%Y-%m-%d %H:%M:%f', 'now')";

// SQLite triggers cannot assign NEW: an AFTER trigger updates the row again
// (recursive triggers are off, and changed_at alone is not watched).
const SQLITE_UP = TABLES.flatMap((t) => [
  `ALTER TABLE ${t} ADD COLUMN changed_at datetime`,
  `CREATE INDEX ix_${t}_changed ON ${t} (changed_at)`,
  `CREATE TRIGGER tr_${t}_changed_insert AFTER INSERT ON ${t} FOR EACH ROW BEGIN UPDATE ${t} SET changed_at = ${SQLITE_NOW} WHERE rowid = NEW.rowid; END`,
  `CREATE TRIGGER tr_${t}_changed_update AFTER UPDATE ON ${t} FOR EACH ROW WHEN ${changedWhen(t, 'IS NOT')} BEGIN UPDATE ${t} SET changed_at = ${SQLITE_NOW} WHERE rowid = NEW.rowid; END`,
]);

const SQLITE_DOWN = TABLES.flatMap((t) => [
  `DROP TRIGGER tr_${t}_changed_update`,
  `DROP TRIGGER tr_${t}_changed_insert`,
  `DROP INDEX ix_${t}_changed`,
  `ALTER TABLE ${t} DROP COLUMN changed_at`,
]);

const isPostgres = (queryRunner: QueryRunner) => queryRunner.connection.options.type === 'postgres';

export class EdgeChangeFeed1760000000800 implements DeclaresConcurrentIndexes {
  readonly name = 'EdgeChangeFeed1760000000800';
  readonly concurrentIndexes = POSTGRES_INDEXES;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of isPostgres(queryRunner) ? POSTGRES_UP : SQLITE_UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of isPostgres(queryRunner) ? POSTGRES_DOWN : SQLITE_DOWN) await queryRunner.query(statement);
  }
}
