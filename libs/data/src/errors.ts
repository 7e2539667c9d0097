import { QueryFailedError } from 'typeorm';

/** Names of the unique constraints and indexes of the schema (the same on both databases). */
export const UNIQUE_CONSTRAINTS = {
  applicationsPk: 'pk_applications',
  applicationsLiveSlug: 'uq_applications_live_slug',
  credentialsPk: 'pk_credentials',
  credentialsKeyHash: 'uq_credentials_key_hash',
  domainsPk: 'pk_domains',
  domainsLiveHostname: 'uq_domains_live_hostname',
  domainChecksPk: 'pk_domain_checks',
  idempotencyKeysPk: 'pk_idempotency_keys',
  rateCountersPk: 'pk_rate_counters',
  outboxId: 'pk_outbox',
  settingsPk: 'pk_settings',
} as const;

export type UniqueConstraint = (typeof UNIQUE_CONSTRAINTS)[keyof typeof UNIQUE_CONSTRAINTS];

/** A write collided with a unique constraint; `constraint` names it when the database says which. */
export class UniqueViolation extends Error {
  constructor(
    readonly constraint?: string,
    options?: { cause?: unknown },
  ) {
    super(`Unique constraint violated${constraint ? `: ${constraint}` : ''}.`, options);
    this.name = 'UniqueViolation';
  }
}

/** A unit of work was started from inside another one of the same SQLite store (it would wait for itself forever). */
export class NestedUnitOfWorkError extends Error {
  constructor() {
    super('transaction()/run() called inside another unit of work of the same data store: use the repositories you were given.');
    this.name = 'NestedUnitOfWorkError';
  }
}

// SQLite reports the columns ("UNIQUE constraint failed: domains.hostname"), not the index name.
const SQLITE_UNIQUE_COLUMNS: Record<string, UniqueConstraint> = {
  'applications.id': UNIQUE_CONSTRAINTS.applicationsPk,
  'applications.slug': UNIQUE_CONSTRAINTS.applicationsLiveSlug,
  'credentials.id': UNIQUE_CONSTRAINTS.credentialsPk,
  'credentials.key_hash': UNIQUE_CONSTRAINTS.credentialsKeyHash,
  'domains.id': UNIQUE_CONSTRAINTS.domainsPk,
  'domains.hostname': UNIQUE_CONSTRAINTS.domainsLiveHostname,
  'domain_checks.domain_id, domain_checks.type': UNIQUE_CONSTRAINTS.domainChecksPk,
  'idempotency_keys.application_id, idempotency_keys.key': UNIQUE_CONSTRAINTS.idempotencyKeysPk,
  'rate_counters.key': UNIQUE_CONSTRAINTS.rateCountersPk,
  'outbox.id': UNIQUE_CONSTRAINTS.outboxId,
  'settings.key': UNIQUE_CONSTRAINTS.settingsPk,
};

const PG_UNIQUE_VIOLATION = '23505';
const SQLITE_UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

/** The UniqueViolation hidden in a driver error, or null when it is something else. */
export function asUniqueViolation(err: unknown): UniqueViolation | null {
  if (!(err instanceof QueryFailedError)) return null;
  const driverError = err.driverError as DriverError;
  if (driverError.code === PG_UNIQUE_VIOLATION) {
    return new UniqueViolation(typeof driverError.constraint === 'string' ? driverError.constraint : undefined, { cause: err });
  }
  if (typeof driverError.code === 'string' && SQLITE_UNIQUE_CODES.has(driverError.code)) {
    const columns = typeof driverError.message === 'string' ? /constraint failed: (.+)$/.exec(driverError.message)?.[1] : undefined;
    return new UniqueViolation(columns ? (SQLITE_UNIQUE_COLUMNS[columns] ?? columns) : undefined, { cause: err });
  }
  return null;
}

/** Runs a write, turning a unique-constraint failure into UniqueViolation. */
export async function guardUnique<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    throw asUniqueViolation(err) ?? err;
  }
}
