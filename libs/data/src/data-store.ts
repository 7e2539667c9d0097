import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseDatabaseUrl } from '@cds/core';
import type { Logger } from '@cds/logging';
import { DataSource, MigrationExecutor, type DataSourceOptions, type EntityManager, type QueryRunner } from 'typeorm';
import type { DataStore, Repositories } from './data-store.types';
import { postgresConnection, type DatabaseKind, type DatabaseTarget } from './database-url';
import { entitySchemas } from './entities';
import { withAdvisoryXactLock } from './advisory-lock';
import { buildConcurrentIndexes, pendingConcurrentIndexes } from './concurrent-index-build';
import { MIGRATIONS } from './migrations';
import { concurrentIndexesOf, type ConcurrentIndex } from './migrations/concurrent-index';
import { Mutex } from './mutex';
import { createRepositories } from './repositories';
import { SLOW_QUERY_MS, typeOrmLogger } from './typeorm-logger';
import { inUnitScope } from './unit-scope';

export interface DataStoreOptions {
  /** `postgres://…` or `sqlite:<path>`. */
  url: string;
  logger?: Logger;
  /** PostgreSQL connection pool size (default 10). */
  poolSize?: number;
  /** PostgreSQL: PEM certificates of the CAs trusted for the server's certificate, instead of node's (DATABASE_CA_BUNDLE). */
  ca?: string;
  /**
   * PostgreSQL: give up connecting, and waiting for an answer, after these many
   * milliseconds (default: wait as long as the network does). A service that
   * must keep going while the database is away (the edge) sets them: a
   * database behind a network that drops packets would otherwise hold its
   * requests for minutes.
   */
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  /**
   * Reads alone, on connections of this store's own (the edge's change feed):
   * its reads never queue behind the units of work of other stores. PostgreSQL
   * refuses writes on its connections; on SQLite it opens the file read-only
   * and does not share the file's serialization (in WAL mode a reader never
   * waits for the writer). Not for an in-memory SQLite database, which is
   * another database on each connection.
   */
  readOnly?: boolean;
}

const SQLITE_BUSY_TIMEOUT_MS = 5000;
const MEMORY = ':memory:';
/** Advisory lock key held by the transaction that migrates ("cds" + 0). */
const MIGRATION_LOCK_KEY = 0x63647300;

// TypeORM's better-sqlite3 driver has ONE connection and one query runner, so units of work
// on a file must run one at a time. The mutex is per file, shared by every store of this process.
const sqliteMutexes = new Map<string, { mutex: Mutex; stores: number }>();

function acquireFileMutex(file: string): Mutex {
  const entry = sqliteMutexes.get(file) ?? { mutex: new Mutex(), stores: 0 };
  entry.stores += 1;
  sqliteMutexes.set(file, entry);
  return entry.mutex;
}

function releaseFileMutex(file: string): void {
  const entry = sqliteMutexes.get(file);
  if (entry && --entry.stores === 0) sqliteMutexes.delete(file);
}

/** TypeORM's options for the store; exported for the test of what reaches the driver. */
export function dataSourceOptions(target: DatabaseTarget, opts: DataStoreOptions): DataSourceOptions {
  const common = {
    entities: entitySchemas(target.kind),
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    ...(opts.logger ? { logger: typeOrmLogger(opts.logger), maxQueryExecutionTime: SLOW_QUERY_MS } : { logging: false }),
  } as const;
  if (target.kind === 'postgres') {
    // The isolation level is set once per connection, so a transaction needs no SET TRANSACTION round trip to be sure of it.
    const { url, options, ssl } = postgresConnection(target.url, opts.ca);
    const extra = {
      options: opts.readOnly ? `${options} -c default_transaction_read_only=on` : options,
      ...(ssl === undefined ? {} : { ssl }),
      ...(opts.connectTimeoutMs ? { connectionTimeoutMillis: opts.connectTimeoutMs } : {}),
      ...(opts.queryTimeoutMs ? { query_timeout: opts.queryTimeoutMs } : {}),
    };
    return { ...common, type: 'postgres', url, poolSize: opts.poolSize ?? 10, extra };
  }
  return {
    ...common,
    type: 'better-sqlite3',
    database: target.path,
    // PRAGMA journal_mode = WAL (a reader finds the file in that mode already); the driver always sets PRAGMA foreign_keys = ON
    ...(opts.readOnly ? { readonly: true, fileMustExist: true } : { enableWAL: true }),
    timeout: SQLITE_BUSY_TIMEOUT_MS, // better-sqlite3 sets it as PRAGMA busy_timeout: waits for other processes (cdctl)
  };
}

class TypeOrmDataStore implements DataStore {
  private closed = false;

  constructor(
    readonly kind: DatabaseKind,
    private readonly dataSource: DataSource,
    /** SQLite only: serializes every unit of work on the file. */
    private readonly serial: { mutex: Mutex; release: () => void } | null,
    private readonly logger: Logger | undefined,
  ) {}

  transaction<T>(fn: (repos: Repositories) => Promise<T>): Promise<T> {
    const work = (manager: EntityManager) => fn(createRepositories(manager, this.kind));
    return this.unit(() => this.dataSource.transaction(work));
  }

  run<T>(fn: (repos: Repositories) => Promise<T>): Promise<T> {
    return this.unit(() => fn(createRepositories(this.dataSource.manager, this.kind)));
  }

  migrate(): Promise<string[]> {
    return this.unit(() =>
      this.withMigrationLock(async (queryRunner) => {
        const executor = new MigrationExecutor(this.dataSource, queryRunner);
        executor.transaction = 'each';
        const applied = await executor.executePendingMigrations();
        for (const migration of applied) this.logger?.info('database migration applied', { migration: migration.name });
        return applied.map((migration) => migration.name);
      }),
    ).then(async (applied) => {
      if (this.kind === 'postgres') await buildConcurrentIndexes(this.dataSource, await this.declaredIndexes(), MIGRATION_LOCK_KEY, this.logger);
      return applied;
    });
  }

  /** The indexes declared by the migrations applied to this database, to be built concurrently. */
  private async declaredIndexes(): Promise<ConcurrentIndex[]> {
    const executed = new Set((await new MigrationExecutor(this.dataSource).getExecutedMigrations()).map((migration) => migration.name));
    return concurrentIndexesOf(this.dataSource.migrations, executed);
  }

  pendingMigrations(): Promise<string[]> {
    return this.unit(async () => {
      const pending = await new MigrationExecutor(this.dataSource).getPendingMigrations();
      return pending.map((migration) => migration.name);
    });
  }

  async pendingIndexes(): Promise<string[]> {
    if (this.kind !== 'postgres') return [];
    return pendingConcurrentIndexes(this.dataSource, await this.declaredIndexes());
  }

  revertLastMigration(): Promise<string | null> {
    return this.unit(() =>
      this.withMigrationLock(async (queryRunner) => {
        const executor = new MigrationExecutor(this.dataSource, queryRunner);
        const [last] = await executor.getExecutedMigrations();
        if (!last) return null;
        await executor.undoLastMigration();
        this.logger?.info('database migration reverted', { migration: last.name });
        return last.name;
      }),
    );
  }

  ping(): Promise<void> {
    return this.unit(async () => {
      await this.dataSource.query('SELECT 1');
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // On SQLite, wait for the units of work already queued.
    await this.exclusive(() => this.dataSource.destroy());
    this.serial?.release();
  }

  /**
   * On SQLite a unit started inside another would wait for itself forever, so it
   * is refused. PostgreSQL gives each unit its own pooled connection and skips the
   * check: it needs async context tracking, which slows every promise in the
   * process (the edge's hot path), and the SQLite runs of the same code catch nesting.
   */
  private unit<T>(work: () => Promise<T>): Promise<T> {
    return this.serial ? inUnitScope(this.serial.mutex, () => this.exclusive(work)) : work();
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.serial ? this.serial.mutex.runExclusive(work) : work();
  }

  /**
   * PostgreSQL: one transaction that first takes a transaction-level advisory
   * lock, then reads which migrations are applied and applies the others, so
   * replicas (or a Helm Job and a service) starting together migrate one at a
   * time and the second finds nothing left to do. A transaction keeps one
   * server connection even behind PgBouncer in transaction mode, where a
   * session lock would be taken on one server connection, released on another
   * and leak (advisory-lock.ts). A failed migration rolls back every migration
   * of the run.
   * SQLite is already serialized by the mutex; each migration has its own transaction.
   */
  private async withMigrationLock<T>(work: (queryRunner: QueryRunner) => Promise<T>): Promise<T> {
    if (this.kind !== 'postgres') {
      const queryRunner = this.dataSource.createQueryRunner();
      try {
        return await work(queryRunner);
      } finally {
        await queryRunner.release();
      }
    }
    return withAdvisoryXactLock(this.dataSource, MIGRATION_LOCK_KEY, work);
  }
}

/** Opens the database named by `url` (PostgreSQL pool, or a SQLite file whose directory is created). Does not migrate. */
export async function createDataStore(opts: DataStoreOptions): Promise<DataStore> {
  const target = parseDatabaseUrl(opts.url);
  let serial: { mutex: Mutex; release: () => void } | null = null;
  if (target.kind === 'sqlite') {
    if (opts.readOnly) {
      if (target.path === MEMORY) throw new Error('A read-only store needs a database file: an in-memory SQLite database is another one on each connection.');
      // Its own serialization: its reads need not wait for the units of work of the file's other stores.
      serial = { mutex: new Mutex(), release: () => undefined };
    } else if (target.path === MEMORY) {
      serial = { mutex: new Mutex(), release: () => undefined };
    } else {
      const file = resolve(target.path);
      await mkdir(dirname(file), { recursive: true });
      serial = { mutex: acquireFileMutex(file), release: () => releaseFileMutex(file) };
    }
  }
  const dataSource = new DataSource(dataSourceOptions(target, opts));
  try {
    await dataSource.initialize();
  } catch (err) {
    serial?.release();
    throw err;
  }
  return new TypeOrmDataStore(target.kind, dataSource, serial, opts.logger);
}
