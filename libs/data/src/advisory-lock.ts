import type { DataSource, QueryRunner } from 'typeorm';

// PostgreSQL's transaction-level advisory lock of the migrations (and the
// index builds after them), held by a transaction on one connection: behind
// PgBouncer in transaction mode a session lock would be taken on one server
// connection, released on another and leak. It is polled, never waited for
// inside a statement: a blocked SELECT pg_advisory_xact_lock keeps its
// snapshot, and a CREATE INDEX CONCURRENTLY run by the holder waits for every
// older snapshot, so the two would wait for each other through this process.

const LOCK_POLL_MS = 250;

/** Runs `work` on a connection whose transaction holds `lockKey`; commits after it, rolls back if it throws. */
export async function withAdvisoryXactLock<T>(dataSource: DataSource, lockKey: number, work: (queryRunner: QueryRunner) => Promise<T>): Promise<T> {
  const locked = await takeAdvisoryXactLock(dataSource, lockKey);
  try {
    const result = await work(locked);
    await locked.commitTransaction();
    return result;
  } catch (err) {
    if (locked.isTransactionActive) await locked.rollbackTransaction().catch(() => undefined);
    throw err;
  } finally {
    await locked.release();
  }
}

/** Each try in a transaction of its own, so a waiter holds no snapshot between tries. */
async function takeAdvisoryXactLock(dataSource: DataSource, lockKey: number): Promise<QueryRunner> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    for (;;) {
      await queryRunner.startTransaction();
      // No parameters: the simple protocol. An extended-protocol statement's
      // portal lives until the transaction ends and keeps its snapshot.
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
