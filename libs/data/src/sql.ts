import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { QueryFailedError, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import type { DatabaseKind } from './database-url';

/**
 * Raw SQL with `:name` parameters, written once for both databases: the driver
 * turns them into `$n` (PostgreSQL) or `?` (SQLite, where Dates become the same
 * UTC text TypeORM stores). Use it for statements that return rows.
 */
export async function queryRows<T>(manager: EntityManager, sql: string, params: Record<string, unknown>): Promise<T[]> {
  const [text, values] = manager.connection.driver.escapeQueryWithParameters(sql, params, {});
  return (await manager.query(text, values)) as T[];
}

interface PreparedStatement {
  name: string;
  text: string;
  /** The parameter behind $1, $2, … */
  keys: string[];
}

/**
 * Named statements by their `:name` SQL. Callers pass the same string object
 * for the same statement, so the lookup does not hash the text again.
 */
const prepared = new Map<string, PreparedStatement>();

/** `:name` → `$n`, as TypeORM's PostgreSQL driver does, once per SQL text. */
function prepare(sql: string, params: Record<string, unknown>): PreparedStatement {
  let statement = prepared.get(sql);
  if (statement === undefined) {
    const keys: string[] = [];
    const text = sql.replace(/:(\.\.\.)?([A-Za-z0-9_.]+)/g, (full, spread: string | undefined, key: string) => {
      if (!Object.hasOwn(params, key)) return full;
      if (spread) throw new TypeError('A prepared statement takes no list parameters.');
      const index = keys.indexOf(key);
      return `$${index >= 0 ? index + 1 : keys.push(key)}`;
    });
    statement = { name: `cds_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text, keys };
    prepared.set(sql, statement);
  }
  return statement;
}

/**
 * `queryRows` for the hottest statements (one per API request): on PostgreSQL
 * a named prepared statement, which each connection parses and plans once
 * instead of at every execution (measured: 40% less server CPU for the create
 * path). It goes to pg directly, so TypeORM's query log does not see it.
 * Elsewhere it is `queryRows`.
 */
export async function queryPrepared<T>(manager: EntityManager, sql: string, params: Record<string, unknown>): Promise<T[]> {
  if (manager.connection.driver.options.type !== 'postgres') return queryRows<T>(manager, sql, params);
  const { name, text, keys } = prepare(sql, params);
  const values = keys.map((key) => {
    if (!Object.hasOwn(params, key)) throw new TypeError(`Parameter ${key} is missing.`);
    return params[key];
  });
  // Inside a transaction, on its connection; otherwise on any pooled one.
  const target: Pool | PoolClient = manager.queryRunner
    ? ((await (manager.queryRunner as PostgresQueryRunner).connect()) as PoolClient)
    : ((manager.connection.driver as PostgresDriver).master as Pool);
  try {
    return (await target.query({ name, text, values })).rows as T[];
  } catch (err) {
    throw new QueryFailedError(text, values, err as Error);
  }
}

/**
 * The `returning` columns of the rows an UPDATE changed, on both databases.
 * PostgreSQL answers an UPDATE with [rows, count] through TypeORM and a SELECT
 * with rows: hence the CTE there.
 */
export function updateReturning<T>(manager: EntityManager, kind: DatabaseKind, update: string, returning: string, params: Record<string, unknown>): Promise<T[]> {
  const sql = kind === 'postgres' ? `WITH changed AS (${update} RETURNING ${returning}) SELECT * FROM changed` : `${update} RETURNING ${returning}`;
  return queryRows<T>(manager, sql, params);
}

/**
 * A timestamp read by raw SQL: a Date from pg, ISO 8601 text with its offset
 * from PostgreSQL's JSON, `YYYY-MM-DD HH:MM:SS.SSS` UTC text from SQLite.
 */
export function timestampFromDb(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'string') return new Date(/(Z|[+-]\d\d(:?\d\d)?)$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
  throw new TypeError(`Not a timestamp: ${String(value)}`);
}

/** A row as raw SQL returns it: column name to value (the hot paths skip TypeORM's entity mapping). */
export type RawRow = Record<string, unknown>;

/** A text column that may be NULL. */
export function nullableTextFromDb(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** A timestamp column that may be NULL. */
export function nullableTimestampFromDb(value: unknown): Date | null {
  return value === null || value === undefined ? null : timestampFromDb(value);
}

/** bigint columns come back from pg as strings. */
export function numberFromDb(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new TypeError(`Not an integer: ${String(value)}`);
  return n;
}

/** The database's clock: PostgreSQL's transaction time; SQLite's (the process's own) with the milliseconds datetime() drops. */
const DATABASE_NOW: Record<DatabaseKind, string> = {
  postgres: 'SELECT now() AS now',
  sqlite: "SELECT strftime('%Y-%m-%d %H:%M:%f', 'now') AS now",
};

/** What time the database says it is. */
export async function databaseNow(manager: EntityManager, kind: DatabaseKind): Promise<Date> {
  const [row] = await queryRows<{ now: unknown }>(manager, DATABASE_NOW[kind], {});
  return timestampFromDb(row?.now);
}
