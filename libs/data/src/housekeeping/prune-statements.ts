// One batch delete per table (DECISIONS §9). Each statement picks at most
// HOUSEKEEPING_BATCH_ROWS rows by the row's physical address (PostgreSQL ctid,
// SQLite rowid), which every table has whatever its key, and deletes them.
// The condition is repeated on the delete itself: a row changed since it was
// picked (a rate-counter window started again, an idempotency key taken over)
// is left alone. With many rows past retention PostgreSQL finds the picked
// ones by a TID scan; with few, by the same index as the pick, as cheaply.
import { HOUSEKEEPING_BATCH_ROWS, type HousekeepingTable, type RetentionCutoffs } from '@cds/core';
import type { DatabaseKind } from '../database-url';

interface Prune {
  /** Which rows are past retention, on the table's own columns (unqualified). */
  readonly where: string;
  readonly params: (cutoffs: RetentionCutoffs) => Record<string, unknown>;
}

/**
 * Finished deliveries past retention that no replay names: a replay keeps the
 * delivery it copies (its `replay_of`) as long as the replay itself is kept.
 * Deleted leaves first, a chain of replays goes in later batches or runs.
 */
const FINISHED_DELIVERY = (d: string) =>
  `${d}.state IN ('delivered', 'abandoned') AND ${d}.created_at < :before
   AND NOT EXISTS (SELECT 1 FROM webhook_deliveries r WHERE r.replay_of = ${d}.id)`;

/**
 * The oldest batch of finished deliveries past retention (the partial index on
 * created_at): their attempts go first, then, in the next statement, those
 * deliveries that have none left (HOUSEKEEPING_GROUPS).
 */
const OLDEST_FINISHED_DELIVERIES = `SELECT d.id FROM webhook_deliveries d WHERE ${FINISHED_DELIVERY('d')}
  ORDER BY d.created_at LIMIT ${HOUSEKEEPING_BATCH_ROWS}`;

const DELETED_DOMAIN = 'SELECT d.id FROM domains d WHERE d.deleted_at < :before';

const PRUNES: Record<HousekeepingTable, Prune> = {
  // Set-aside rows are never published, so `published_at` already keeps them; the second term says it.
  outbox: {
    where: 'published_at < :before AND set_aside_at IS NULL',
    params: (c) => ({ before: c.outboxPublishedBefore }),
  },
  webhook_attempts: {
    where: `delivery_id IN (${OLDEST_FINISHED_DELIVERIES})`,
    params: (c) => ({ before: c.deliveriesCreatedBefore }),
  },
  // The same window, so that no batch reads past it (a short batch would otherwise read every delivery
  // still waiting for its attempts to go); never a delete that cascades to attempts.
  webhook_deliveries: {
    where: `id IN (${OLDEST_FINISHED_DELIVERIES})
      AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = webhook_deliveries.id)`,
    params: (c) => ({ before: c.deliveriesCreatedBefore }),
  },
  domain_checks: {
    where: `domain_id IN (${DELETED_DOMAIN})`,
    params: (c) => ({ before: c.domainsDeletedBefore }),
  },
  // A domain's last runs (DECISIONS §15) go with it.
  domain_check_runs: {
    where: `domain_id IN (${DELETED_DOMAIN})`,
    params: (c) => ({ before: c.domainsDeletedBefore }),
  },
  certificates: {
    where: `domain_id IN (${DELETED_DOMAIN})`,
    params: (c) => ({ before: c.domainsDeletedBefore }),
  },
  // Challenges are keyed by hostname, which a live domain may hold again.
  acme_challenges: {
    where: `hostname IN (SELECT d.hostname FROM domains d WHERE d.deleted_at < :before)
      AND NOT EXISTS (SELECT 1 FROM domains l WHERE l.hostname = acme_challenges.hostname AND l.deleted_at IS NULL)`,
    params: (c) => ({ before: c.domainsDeletedBefore }),
  },
  domains: {
    where: 'deleted_at < :before',
    params: (c) => ({ before: c.domainsDeletedBefore }),
  },
  idempotency_keys: {
    where: 'expires_at <= :at',
    params: (c) => ({ at: c.expiredAt }),
  },
  rate_counters: {
    where: 'reset_at <= :at',
    params: (c) => ({ at: c.expiredAt }),
  },
  traffic_daily: {
    where: 'day < :day',
    params: (c) => ({ day: c.firstTrafficDayKept }),
  },
};

/** The batch delete of `table` (with `:name` parameters) and its parameters. */
export function pruneStatement(kind: DatabaseKind, table: HousekeepingTable, cutoffs: RetentionCutoffs): { sql: string; params: Record<string, unknown> } {
  const { where, params } = PRUNES[table];
  const pick = `SELECT {address} FROM ${table} WHERE ${where} LIMIT ${HOUSEKEEPING_BATCH_ROWS}`;
  const sql =
    kind === 'postgres'
      ? `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(${pick.replace('{address}', 'ctid')})) AND ${where}`
      : `DELETE FROM ${table} WHERE rowid IN (${pick.replace('{address}', 'rowid')}) AND ${where}`;
  return { sql, params: params(cutoffs) };
}
