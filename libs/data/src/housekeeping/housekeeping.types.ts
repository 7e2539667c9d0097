// The batch deletes of housekeeping (DECISIONS §9; statements in prune-statements.ts).
import type { HousekeepingTable, RetentionCutoffs } from '@cds/core';

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
