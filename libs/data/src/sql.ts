import type { EntityManager } from 'typeorm';

/**
 * Raw SQL with `:name` parameters, written once for both databases: the driver
 * turns them into `$n` (PostgreSQL) or `?` (SQLite, where Dates become the same
 * UTC text TypeORM stores). Use it for statements that return rows.
 */
export async function queryRows<T>(manager: EntityManager, sql: string, params: Record<string, unknown>): Promise<T[]> {
  const [text, values] = manager.connection.driver.escapeQueryWithParameters(sql, params, {});
  return (await manager.query(text, values)) as T[];
}

/** A timestamp read by raw SQL: a Date from pg, `YYYY-MM-DD HH:MM:SS.SSS` UTC text from SQLite. */
export function timestampFromDb(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'string') return new Date(`${value.replace(' ', 'T')}Z`);
  throw new TypeError(`Not a timestamp: ${String(value)}`);
}

/** bigint columns come back from pg as strings. */
export function numberFromDb(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new TypeError(`Not an integer: ${String(value)}`);
  return n;
}
