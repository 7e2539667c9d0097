import { WEBHOOK_COOLING_AFTER_FAILURES, WEBHOOK_COOLING_RECENT_FAILURES, type CoolingState } from '@cds/core';
import { numberFromDb, type RawRow } from '../sql';

/**
 * A cooling subscription in SQL (DECISIONS §10, libs/core isCooling), as the
 * partial index ix_webhook_subscriptions_cooling states it: SQLite uses a
 * partial index only for a query that repeats its condition, literals and not
 * parameters. `alias`: the subscriptions table's alias in the query.
 */
export function cooling(alias?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `(${column('consecutive_failures')} >= ${WEBHOOK_COOLING_AFTER_FAILURES} OR ${column('recent_failures')} >= ${WEBHOOK_COOLING_RECENT_FAILURES})`;
}

/** A subscription's cooling state from its `consecutive_failures` and `recent_outcomes` columns. */
export function coolingStateFromDb(row: RawRow): CoolingState {
  return { failureStreak: numberFromDb(row.consecutive_failures), recentOutcomes: String(row.recent_outcomes ?? '') };
}
