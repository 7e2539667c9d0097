// Housekeeping (DECISIONS §9): every HOUSEKEEPING_INTERVAL, the one runner
// holding the lease deletes what is past retention, group by group of tables
// (HOUSEKEEPING_GROUPS), in batches of at most HOUSEKEEPING_BATCH_ROWS rows
// per statement, each statement its own short transaction followed by a pause
// in proportion to it, until a round of the group comes back short.
// The API process runs it (and so the all-in-one one); its statements and the
// lease's compare-and-swap are in libs/data.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  errorMessage,
  HOUSEKEEPING_GROUPS,
  HOUSEKEEPING_LEASE_MS,
  HOUSEKEEPING_TABLES,
  isLastBatch,
  pauseAfterStatement,
  retentionCutoffs,
  type HousekeepingSettings,
  type HousekeepingTable,
  type RetentionCutoffs,
} from '@cds/core';
import {
  HousekeepingLeaseKeeper,
  LeaseLostError,
  type DataStore,
  type DeletedRows,
  type HousekeepingOutcome,
  type HousekeepingReport,
  type LeaseClaim,
} from '@cds/data';
import { silentLogger, type Logger } from '@cds/logging';

/** One delete statement, timed on performance.now()'s clock (instrumentation, tests). */
export interface PruneStatementEvent {
  readonly table: HousekeepingTable;
  readonly deleted: number;
  readonly startedAt: number;
  readonly endedAt: number;
}

export interface HousekeepingOptions {
  store: DataStore;
  /** HOUSEKEEPING_INTERVAL and the retentions (libs/config's Config has these fields). */
  settings: HousekeepingSettings;
  logger?: Logger;
  /** The clock of the lease. Default: the system clock. Cutoffs come from the database's clock, whatever this one says. */
  now?: () => Date;
  /** This runner's name in the lease. Default: a random uuid. */
  holder?: string;
  /** Default HOUSEKEEPING_LEASE_MS. */
  leaseMs?: number;
  /** Told how every tick ended (the metrics). */
  onRun?: (report: HousekeepingReport) => void;
  /** Awaited after each delete statement. */
  onStatement?: (event: PruneStatementEvent) => void | Promise<void>;
  /** The pause after each statement, in multiples of its duration (default HOUSEKEEPING_PAUSE_FACTOR; 0: none). */
  pauseFactor?: number;
}

export interface Housekeeping {
  /** One tick now: takes the lease if free and due, runs, gives it back. Ticks of one runner never overlap. */
  runOnce(): Promise<HousekeepingReport>;
  /** No new tick; a run in progress stops after its current statement and gives the lease back. */
  stop(): Promise<void>;
}

/** A table's delete statement failed: the run goes on with the next group. */
class TablePruneError extends Error {
  constructor(readonly table: HousekeepingTable, cause: unknown) {
    super(`${table}: ${errorMessage(cause)}`, { cause });
    this.name = 'TablePruneError';
  }
}

/** The lease of a run in progress, renewed as the run goes. */
interface HeldLease {
  claim: LeaseClaim;
  /** When it was last written (the `now` clock, epoch ms). */
  renewedAt: number;
}

const noRows = (): DeletedRows => Object.fromEntries(HOUSEKEEPING_TABLES.map((table) => [table, 0])) as DeletedRows;

/** A runner without a timer: ticks happen on runOnce (tests, tools). */
export function createHousekeeping(opts: HousekeepingOptions): Housekeeping {
  const { store, settings } = opts;
  const logger = opts.logger ?? silentLogger;
  const now = opts.now ?? (() => new Date());
  const leaseMs = opts.leaseMs ?? HOUSEKEEPING_LEASE_MS;
  const keeper = new HousekeepingLeaseKeeper(store, opts.holder ?? randomUUID(), leaseMs);
  let stopping = false;
  let chain: Promise<unknown> = Promise.resolve();

  /** One batch of `table`; the rows it deleted. */
  async function pruneBatch(table: HousekeepingTable, cutoffs: RetentionCutoffs, deleted: DeletedRows, lease: HeldLease): Promise<number> {
    const startedAt = performance.now();
    const rows = await store.run((r) => r.housekeeping.prune(table, cutoffs));
    const endedAt = performance.now();
    deleted[table] += rows;
    await opts.onStatement?.({ table, deleted: rows, startedAt, endedAt });
    // Room for the service's own writes between two deletes (libs/core HOUSEKEEPING_PAUSE_FACTOR).
    const pause = pauseAfterStatement(endedAt - startedAt, opts.pauseFactor);
    if (pause > 0 && !stopping) await sleep(pause);
    // Renewed a few times per lease, not at every batch: a run of many batches must not lose it.
    const at = now();
    if (at.getTime() - lease.renewedAt >= leaseMs / 5) {
      lease.claim = await keeper.renew(lease.claim, at);
      lease.renewedAt = at.getTime();
    }
    return rows;
  }

  /** Rounds of one batch per table of the group until a round where every batch comes back short. */
  async function pruneGroup(group: readonly HousekeepingTable[], cutoffs: RetentionCutoffs, deleted: DeletedRows, lease: HeldLease): Promise<void> {
    for (;;) {
      let more = false;
      for (const table of group) {
        if (stopping) return;
        try {
          if (!isLastBatch(await pruneBatch(table, cutoffs, deleted, lease))) more = true;
        } catch (error) {
          throw error instanceof LeaseLostError ? error : new TablePruneError(table, error);
        }
      }
      if (!more) return;
    }
  }

  async function tick(): Promise<HousekeepingReport> {
    // Retention is measured on the database's clock, the one its rows' times compare to, not this runner's.
    const cutoffs = retentionCutoffs(await store.run((r) => r.housekeeping.databaseTime()), settings);
    const startedAt = now();
    const attempt = await keeper.take(startedAt, settings.housekeepingInterval);
    if (!attempt.taken) {
      logger.debug('housekeeping run skipped', { reason: attempt.reason });
      return { outcome: attempt.reason, deleted: noRows(), durationMs: 0, lastSuccessAt: attempt.lastSuccessAt };
    }
    const lease: HeldLease = { claim: attempt.claim, renewedAt: startedAt.getTime() };
    const deleted = noRows();
    const began = performance.now();
    // A table that fails does not keep the others from being pruned; a lost lease ends the run.
    const failed: Partial<Record<HousekeepingTable | 'lease', string>> = {};
    let lost = false;
    for (const group of HOUSEKEEPING_GROUPS) {
      try {
        await pruneGroup(group, cutoffs, deleted, lease);
      } catch (error) {
        if (error instanceof LeaseLostError) {
          failed.lease = error.message;
          lost = true;
          break;
        }
        if (error instanceof TablePruneError) failed[error.table] = errorMessage(error.cause);
        else throw error;
      }
    }
    let outcome: HousekeepingOutcome = Object.keys(failed).length > 0 ? 'failure' : stopping ? 'stopped' : 'success';
    let lastSuccessAt = lease.claim.lease.lastSuccessAt;
    if (!lost) {
      try {
        lease.claim = await keeper.release(lease.claim, outcome === 'success' ? { startedAt, endedAt: now() } : null);
        lastSuccessAt = lease.claim.lease.lastSuccessAt;
      } catch (error) {
        // Lost meanwhile, or the database went away: the claim lapses on its own.
        failed.lease = errorMessage(error);
        outcome = 'failure';
      }
    }
    const durationMs = performance.now() - began;
    const fields = { deleted, rows: Object.values(deleted).reduce((sum, n) => sum + n, 0), duration_ms: Math.round(durationMs) };
    if (outcome === 'failure') logger.error('housekeeping run failed', { ...fields, failed });
    else logger.info(outcome === 'stopped' ? 'housekeeping run stopped early' : 'housekeeping run finished', fields);
    return { outcome, deleted, durationMs, lastSuccessAt };
  }

  async function guardedTick(): Promise<HousekeepingReport> {
    if (stopping) return { outcome: 'stopped', deleted: noRows(), durationMs: 0, lastSuccessAt: null };
    let report: HousekeepingReport;
    try {
      report = await tick();
    } catch (error) {
      // The lease row could not be read or written (database unreachable).
      logger.error('housekeeping run failed', { failed: { lease: errorMessage(error) } });
      report = { outcome: 'failure', deleted: noRows(), durationMs: 0, lastSuccessAt: null };
    }
    try {
      opts.onRun?.(report);
    } catch (error) {
      logger.warn('housekeeping report hook failed', { error: errorMessage(error) });
    }
    return report;
  }

  return {
    runOnce() {
      const next = chain.then(guardedTick);
      chain = next.catch(() => undefined);
      return next;
    },
    async stop() {
      stopping = true;
      await chain;
    },
  };
}

/**
 * Node's timers hold 2^31 - 1 ms (24.8 days) at most; a longer delay fires
 * after 1 ms instead, and the ticks would follow each other without pause.
 * An interval longer than that ticks every 24.8 days: a tick before the run is
 * due finds it `not_due`.
 */
const MAX_TIMER_MS = 2_147_483_647;

/** A runner that ticks at once and then every HOUSEKEEPING_INTERVAL after each tick ends. */
export function startHousekeeping(opts: HousekeepingOptions): Housekeeping {
  const runner = createHousekeeping(opts);
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      void runner.runOnce().finally(() => schedule(opts.settings.housekeepingInterval));
    }, Math.min(delayMs, MAX_TIMER_MS));
    timer.unref();
  };
  schedule(0);

  return {
    runOnce: () => runner.runOnce(),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await runner.stop();
    },
  };
}
