import type { ColumnType, ValueTransformer } from 'typeorm';
import type { DatabaseKind } from '../database-url';

/** Column types whose name differs between the databases; everything else is spelt the same. */
export interface ColumnTypes {
  uuid: ColumnType;
  /** timestamptz on PostgreSQL; on SQLite TypeORM's `datetime`, kept as `YYYY-MM-DD HH:MM:SS.SSS` UTC text (sorts and compares as text, keeps milliseconds). */
  timestamp: ColumnType;
  bigint: ColumnType;
}

export function columnTypes(kind: DatabaseKind): ColumnTypes {
  return kind === 'postgres'
    ? { uuid: 'uuid', timestamp: 'timestamptz', bigint: 'bigint' }
    : { uuid: 'varchar', timestamp: 'datetime', bigint: 'integer' };
}

/** pg returns bigint as a string; the values here stay far below 2^53. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : Number(value)),
};
