// The batch deletes of housekeeping (DECISIONS §9; statements in prune-statements.ts),
// and what a run reports: the runner (libs/lifecycle) fills it in, the metrics read it.
import type { HousekeepingSkip, HousekeepingTable, RetentionCutoffs } from '@cds/core';

export interface HousekeepingRepository {
  /**
   * The database's clock now: a run's cutoffs are computed from it, so a
   * runner whose clock is off deletes neither early nor late.
   */
  databaseTime(): Promise<Date>;
  /**
   * Deletes at most HOUSEKEEPING_BATCH_ROWS rows of `table` that are past
   * retention, in one statement; returns how many it deleted.
   */
  prune(table: HousekeepingTable, cutoffs: RetentionCutoffs): Promise<number>;
}

/**
 * How a tick ended: `success`, `failure` (a table's statement failed, and the
 * other tables were pruned; or the lease was lost or could not be read),
 * `stopped` (shutdown came first), or a skip:
 * `busy` (another runner holds the lease), `not_due` (a run succeeded less
 * than an interval ago).
 */
export type HousekeepingOutcome = 'success' | 'failure' | 'stopped' | HousekeepingSkip;

export type DeletedRows = Record<HousekeepingTable, number>;

export interface HousekeepingReport {
  readonly outcome: HousekeepingOutcome;
  /** Rows deleted by this tick, per table (zeros when it skipped). */
  readonly deleted: DeletedRows;
  /** Time the run took; 0 when it skipped. */
  readonly durationMs: number;
  /** End of the last successful run anywhere in the deployment, as far as this tick learned; null when unknown. */
  readonly lastSuccessAt: Date | null;
}
