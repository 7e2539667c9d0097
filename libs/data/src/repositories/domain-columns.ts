// The columns of a domain row, listed once: the registration's INSERT and the
// lease statements' RETURNING are written from this list.
import type { DomainRow } from './domains.types';
import type { Column } from './rows-insert';

/** Field, column and PostgreSQL type (the casts of an INSERT … SELECT) of every column of DomainRow. */
export const DOMAIN_COLUMNS: ReadonlyArray<Column<DomainRow>> = [
  ['id', 'id', 'uuid'],
  ['applicationId', 'application_id', 'uuid'],
  ['hostname', 'hostname', 'varchar'],
  ['reference', 'reference', 'varchar'],
  ['status', 'status', 'varchar'],
  ['challengeToken', 'challenge_token', 'text'],
  ['metadata', 'metadata', 'text'],
  ['redirectTo', 'redirect_to', 'varchar'],
  ['createdAt', 'created_at', 'timestamptz'],
  ['updatedAt', 'updated_at', 'timestamptz'],
  ['deletedAt', 'deleted_at', 'timestamptz'],
  ['nextCheckAt', 'next_check_at', 'timestamptz'],
];

/** The column names, comma-separated. */
export const DOMAIN_COLUMN_NAMES = DOMAIN_COLUMNS.map(([, column]) => column).join(', ');
