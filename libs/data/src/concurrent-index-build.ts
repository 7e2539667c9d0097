import type { Logger } from '@cds/logging';
import type { DataSource, QueryRunner } from 'typeorm';
import { createIndexStatement, type ConcurrentIndex } from './migrations/concurrent-index';

// PostgreSQL, after the migration run has committed: builds each declared
// index that is missing, or invalid (what a failed or interrupted concurrent
// build leaves), with CREATE INDEX CONCURRENTLY, so writes to its table go on
// meanwhile. One migrator at a time builds: the others wait for the lock and
// then find the indexes valid.
//
// The lock is a transaction-level advisory lock held by a transaction on one
// connection (behind PgBouncer in transaction mode a session lock would leak),
// while the builds run on other connections, outside any transaction. A
// concurrent build waits for every transaction that holds a snapshot older
// than its own, so nobody may wait for this lock inside a statement (a
// blocked SELECT pg_advisory_xact_lock keeps its snapshot, and the build and
// the waiter would wait for each other through this process): waiters poll
// pg_try_advisory_xact_lock, each try in a transaction of its own.

const LOCK_POLL_MS = 250;

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

/**
 * Takes `lockKey` in a transaction of its own on a dedicated connection,
 * polling without ever waiting inside a statement. Resolves with the query
 * runner whose transaction holds it; commit or roll back to release.
 */
export async function takeAdvisoryXactLock(dataSource: DataSource, lockKey: number): Promise<QueryRunner> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    for (;;) {
      await queryRunner.startTransaction();
      // No parameters: the simple protocol. An extended-protocol statement's
      // portal lives until the transaction ends and keeps its snapshot, which
      // the builds would then wait for.
      const [row] = (await queryRunner.query(`SELECT pg_try_advisory_xact_lock(${Math.trunc(lockKey)}) AS taken`)) as { taken: boolean }[];
      if (row?.taken) return queryRunner;
      await queryRunner.rollbackTransaction();
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
  } catch (err) {
    if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction().catch(() => undefined);
    await queryRunner.release();
    throw err;
  }
}

/** Builds the missing or invalid `indexes`; returns the names built. */
export async function buildConcurrentIndexes(dataSource: DataSource, indexes: readonly ConcurrentIndex[], lockKey: number, logger?: Logger): Promise<string[]> {
  const names = indexes.map((index) => index.name);
  if (indexes.length === 0) return [];
  // Every run but the first after an upgrade: all valid, no lock taken.
  const before = await indexStates(dataSource, names);
  if (indexes.every((index) => !needsBuild(before, index))) return [];

  const lock = await takeAdvisoryXactLock(dataSource, lockKey);
  const built: string[] = [];
  try {
    const states = await indexStates(dataSource, names);
    for (const index of indexes) {
      if (!needsBuild(states, index)) continue;
      const started = Date.now();
      // An invalid index of that name is a build that failed or was interrupted.
      if (states.has(index.name)) await dataSource.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`);
      await dataSource.query(createIndexStatement(index, true));
      built.push(index.name);
      logger?.info('database index built', { index: index.name, table: index.table, duration_ms: Date.now() - started });
    }
    await lock.commitTransaction();
    return built;
  } catch (err) {
    if (lock.isTransactionActive) await lock.rollbackTransaction().catch(() => undefined);
    throw err;
  } finally {
    await lock.release();
  }
}
