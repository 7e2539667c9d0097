import type { Logger } from '@cds/logging';
import type { DataSource } from 'typeorm';
import { withAdvisoryXactLock } from './advisory-lock';
import { createIndexStatement, type ConcurrentIndex } from './migrations/concurrent-index';

// PostgreSQL, after the migration run has committed: builds each declared
// index that is missing, or invalid (what a failed or interrupted concurrent
// build leaves), with CREATE INDEX CONCURRENTLY, so writes to its table go on
// meanwhile. One migrator at a time builds, under the migration lock
// (advisory-lock.ts), on other connections than the lock's and outside any
// transaction; the others wait for the lock and then find the indexes valid.

interface IndexState {
  name: string;
  valid: boolean;
}

async function indexStates(dataSource: DataSource, names: readonly string[]): Promise<Map<string, boolean>> {
  const rows: IndexState[] = await dataSource.query(
    `SELECT c.relname AS name, i.indisvalid AS valid
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE c.relname = ANY($1) AND c.relnamespace = current_schema()::regnamespace`,
    [names],
  );
  return new Map(rows.map((row) => [row.name, row.valid]));
}

const needsBuild = (states: Map<string, boolean>, index: ConcurrentIndex) => states.get(index.name) !== true;

/** The names of `indexes` missing or invalid. */
export async function pendingConcurrentIndexes(dataSource: DataSource, indexes: readonly ConcurrentIndex[]): Promise<string[]> {
  if (indexes.length === 0) return [];
  const states = await indexStates(dataSource, indexes.map((index) => index.name));
  return indexes.filter((index) => needsBuild(states, index)).map((index) => index.name);
}

/** Builds the missing or invalid `indexes`; returns the names built. */
export async function buildConcurrentIndexes(dataSource: DataSource, indexes: readonly ConcurrentIndex[], lockKey: number, logger?: Logger): Promise<string[]> {
  // Every run but the first after an upgrade: all valid, no lock taken.
  if ((await pendingConcurrentIndexes(dataSource, indexes)).length === 0) return [];
  return withAdvisoryXactLock(dataSource, lockKey, async () => {
    // Read again under the lock: another migrator may have built them meanwhile.
    const states = await indexStates(dataSource, indexes.map((index) => index.name));
    const built: string[] = [];
    for (const index of indexes.filter((i) => needsBuild(states, i))) {
      const started = Date.now();
      // An invalid index of that name is a build that failed or was interrupted.
      if (states.has(index.name)) await dataSource.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`);
      await dataSource.query(createIndexStatement(index, true));
      built.push(index.name);
      logger?.info('database index built', { index: index.name, table: index.table, duration_ms: Date.now() - started });
    }
    return built;
  });
}
