import type { MigrationInterface, QueryRunner } from 'typeorm';

// An index on a table that grows with the deployment. A plain CREATE INDEX
// blocks writes to its table until the migration run commits; PostgreSQL's
// CREATE INDEX CONCURRENTLY does not, but refuses to run inside the run's
// transaction. So on PostgreSQL a migration only declares such an index, and
// the store builds it once the run has committed (concurrent-index-build.ts).
// SQLite has one writer anyway: the migration builds it in its transaction.

export interface ConcurrentIndex {
  name: string;
  table: string;
  /** What follows `ON <table>`: the columns, and the WHERE of a partial index. */
  definition: string;
}

/** A migration with indexes that PostgreSQL builds after the run, concurrently. */
export interface DeclaresConcurrentIndexes extends MigrationInterface {
  readonly concurrentIndexes: readonly ConcurrentIndex[];
}

const declaresConcurrentIndexes = (migration: MigrationInterface): migration is DeclaresConcurrentIndexes =>
  Array.isArray((migration as Partial<DeclaresConcurrentIndexes>).concurrentIndexes);

/** The indexes `migrations` declare, in order; with `applied`, only those of the migrations it names. */
export function concurrentIndexesOf(migrations: readonly MigrationInterface[], applied?: ReadonlySet<string>): ConcurrentIndex[] {
  return migrations
    .filter((migration) => applied === undefined || (migration.name !== undefined && applied.has(migration.name)))
    .flatMap((migration) => (declaresConcurrentIndexes(migration) ? migration.concurrentIndexes : []));
}

export const createIndexStatement = (index: ConcurrentIndex, concurrently = false): string =>
  `CREATE INDEX ${concurrently ? 'CONCURRENTLY ' : ''}${index.name} ON ${index.table} ${index.definition}`;

const isPostgres = (queryRunner: QueryRunner) => queryRunner.connection.options.type === 'postgres';

/** In a migration's up(): SQLite builds the indexes now; PostgreSQL after the run commits. */
export async function createDeclaredIndexes(queryRunner: QueryRunner, indexes: readonly ConcurrentIndex[]): Promise<void> {
  if (isPostgres(queryRunner)) return;
  for (const index of indexes) await queryRunner.query(createIndexStatement(index));
}

/** In a migration's down(): IF EXISTS, as a build that never ran or failed leaves none (or an invalid one). */
export async function dropDeclaredIndexes(queryRunner: QueryRunner, indexes: readonly ConcurrentIndex[]): Promise<void> {
  for (const index of [...indexes].reverse()) await queryRunner.query(`DROP INDEX IF EXISTS ${index.name}`);
}
