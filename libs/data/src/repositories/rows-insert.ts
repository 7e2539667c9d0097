// One INSERT for many rows, on both databases: a prepared `unnest` of one
// array per column on PostgreSQL (the same text for any number of rows), a
// multi-row VALUES on SQLite.
import type { EntityManager } from 'typeorm';
import { queryPrepared, queryRows } from '../sql';
import type { DatabaseKind } from '../database-url';

/** Field, column, and the column's PostgreSQL type (the array casts of the unnest statements). */
export type Column<T> = [keyof T, string, string];

/** SQLite: `INSERT INTO <table> (…) VALUES (…), (…)` with one named parameter per value. */
function multiRowInsert<T>(table: string, columns: Array<Column<T>>, rows: T[]): { sql: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = {};
  const tuples = rows.map((row, i) => {
    for (const [field] of columns) params[`${String(field)}${i}`] = row[field];
    return `(${columns.map(([field]) => `:${String(field)}${i}`).join(', ')})`;
  });
  return { sql: `INSERT INTO ${table} (${columns.map(([, column]) => column).join(', ')}) VALUES ${tuples.join(', ')}`, params };
}

/**
 * PostgreSQL: `INSERT … SELECT … FROM unnest(…)`, one array per column, so the
 * text is the same for any number of rows: nothing to rewrite per row, and one
 * statement for the server to parse and plan once per connection.
 */
function unnestInsert<T>(table: string, columns: Array<Column<T>>): string {
  const arrays = columns.map(([field, , type]) => `CAST(:${String(field)} AS ${type}[])`).join(', ');
  return `INSERT INTO ${table} (${columns.map(([, column]) => column).join(', ')}) SELECT * FROM unnest(${arrays})`;
}

/** The parameters of an `unnestInsert` statement: each column's values, in row order. */
function columnArrays<T>(columns: Array<Column<T>>, rows: T[]): Record<string, unknown[]> {
  return Object.fromEntries(columns.map(([field]) => [field, rows.map((row) => row[field])]));
}

export interface RowsInsert<T> {
  table: string;
  columns: Array<Column<T>>;
  /** What follows the rows (ON CONFLICT, RETURNING). */
  suffix: string;
  /** The PostgreSQL statement, built once. */
  postgres: string;
}

export function rowsInsert<T>(table: string, columns: Array<Column<T>>, suffix = ''): RowsInsert<T> {
  return { table, columns, suffix, postgres: `${unnestInsert(table, columns)}${suffix}` };
}

/** One statement for all the rows: a prepared unnest on PostgreSQL, a multi-row VALUES on SQLite. */
export function insertRows<T, R>(manager: EntityManager, kind: DatabaseKind, insert: RowsInsert<T>, rows: T[]): Promise<R[]> {
  if (kind === 'postgres') return queryPrepared<R>(manager, insert.postgres, columnArrays(insert.columns, rows));
  const { sql, params } = multiRowInsert(insert.table, insert.columns, rows);
  return queryRows<R>(manager, `${sql}${insert.suffix}`, params);
}
