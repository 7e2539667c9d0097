// Requests forwarded and response bytes per application and UTC day, counted
// in memory on the proxy's hot path and added to traffic_daily every few
// seconds. A flush hands its counts to the database or puts them back: nothing
// is counted twice and nothing is dropped, also not on shutdown.
import { errorMessage } from '@cds/core';
import type { DataStore } from '@cds/data';
import type { Logger } from '@cds/logging';

export interface TrafficCounterDeps {
  store: DataStore;
  logger: Logger;
  /** Delay between flushes; default 5000. */
  flushIntervalMs?: number;
  now?: () => Date;
  /** Called after each flush that wrote rows, with the applications written (e.g. the fair-use watch). */
  afterFlush?: (applicationIds: string[]) => Promise<void> | void;
}

interface Counts {
  requests: number;
  bytes: number;
}

/** day 'YYYY-MM-DD' -> application id -> counts */
type Pending = Map<string, Map<string, Counts>>;

const DAY_MS = 86_400_000;
const DEFAULT_FLUSH_INTERVAL_MS = 5000;
/** Attempts of the final flush in stop() before the remaining counts are reported lost. */
const FINAL_FLUSH_ATTEMPTS = 3;
const FINAL_FLUSH_PAUSE_MS = 250;

export class TrafficCounter {
  private pending: Pending = new Map();
  private readonly clock: () => number;
  private readonly intervalMs: number;
  // The day string is rebuilt only when the UTC day changes, so record() builds no string.
  private dayNumber = Number.NaN;
  private day = '';
  /** Tail of the chain of flushes: each one starts after the previous has settled. */
  private flushing: Promise<boolean> = Promise.resolve(true);
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly deps: TrafficCounterDeps) {
    const now = deps.now;
    this.clock = now ? () => now().getTime() : Date.now;
    this.intervalMs = deps.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
  }

  /** One forwarded request and its response bytes, counted on the current UTC day. O(1), synchronous. */
  record(applicationId: string, responseBytes: number): void {
    const dayNumber = Math.floor(this.clock() / DAY_MS);
    if (dayNumber !== this.dayNumber) {
      this.dayNumber = dayNumber;
      this.day = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
    }
    // A bad byte count would make every later flush of its batch fail: count the request, not the bytes.
    const bytes = Number.isSafeInteger(responseBytes) && responseBytes > 0 ? responseBytes : 0;
    let byApplication = this.pending.get(this.day);
    if (!byApplication) {
      byApplication = new Map();
      this.pending.set(this.day, byApplication);
    }
    const counts = byApplication.get(applicationId);
    if (counts) {
      counts.requests += 1;
      counts.bytes += bytes;
    } else {
      byApplication.set(applicationId, { requests: 1, bytes });
    }
  }

  /** Writes what is pending in one transaction; on failure keeps it for the next flush. Never rejects. */
  flush(): Promise<void> {
    return this.enqueueFlush().then(() => undefined);
  }

  /** Flushes every `flushIntervalMs` until stop(); the timer does not keep the process alive. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  /** Stops the timer and flushes what is left (retrying briefly), so a SIGTERM loses nothing. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (let attempt = 1; attempt <= FINAL_FLUSH_ATTEMPTS; attempt += 1) {
      if (await this.enqueueFlush()) return;
      if (attempt < FINAL_FLUSH_ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, FINAL_FLUSH_PAUSE_MS));
    }
    const lost = totals(this.pending);
    this.deps.logger.error('traffic counts could not be written before shutdown', lost);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      void this.enqueueFlush().then(() => {
        if (this.running) this.schedule();
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  private enqueueFlush(): Promise<boolean> {
    // The catch keeps the chain usable: one unexpected error must not block every later flush.
    this.flushing = this.flushing.then(() => this.flushOnce()).catch((err: unknown) => {
      this.deps.logger.error('traffic flush failed unexpectedly', { error: errorMessage(err) });
      return false;
    });
    return this.flushing;
  }

  /** True when nothing is left pending from this batch (written, or nothing to write). */
  private async flushOnce(): Promise<boolean> {
    if (this.pending.size === 0) return true;
    const batch = this.pending;
    this.pending = new Map();
    const rows = sortedRows(batch);
    try {
      await this.deps.store.transaction(async (r) => {
        for (const row of rows) await r.traffic.addTraffic(row.applicationId, row.day, row.requests, row.bytes);
      });
    } catch (err) {
      this.mergeBack(batch);
      this.deps.logger.warn('traffic flush failed; the counts are kept for the next flush', { error: errorMessage(err), rows: rows.length });
      return false;
    }
    await this.notify([...new Set(rows.map((row) => row.applicationId))]);
    return true;
  }

  private async notify(applicationIds: string[]): Promise<void> {
    if (!this.deps.afterFlush) return;
    try {
      await this.deps.afterFlush(applicationIds);
    } catch (err) {
      this.deps.logger.warn('after-flush hook failed', { error: errorMessage(err) });
    }
  }

  /** Adds a failed batch to whatever record() counted meanwhile. */
  private mergeBack(batch: Pending): void {
    for (const [day, byApplication] of batch) {
      const target = this.pending.get(day);
      if (!target) {
        this.pending.set(day, byApplication);
        continue;
      }
      for (const [applicationId, counts] of byApplication) {
        const existing = target.get(applicationId);
        if (existing) {
          existing.requests += counts.requests;
          existing.bytes += counts.bytes;
        } else {
          target.set(applicationId, counts);
        }
      }
    }
  }
}

interface Row {
  applicationId: string;
  day: string;
  requests: number;
  bytes: number;
}

// A fixed order of row updates, so two edges flushing the same rows cannot deadlock on PostgreSQL.
function sortedRows(batch: Pending): Row[] {
  const rows: Row[] = [];
  for (const [day, byApplication] of batch) {
    for (const [applicationId, counts] of byApplication) rows.push({ applicationId, day, requests: counts.requests, bytes: counts.bytes });
  }
  return rows.sort((a, b) => (a.applicationId < b.applicationId ? -1 : a.applicationId > b.applicationId ? 1 : a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

function totals(pending: Pending): { rows: number; requests: number; bytes: number } {
  const sum = { rows: 0, requests: 0, bytes: 0 };
  for (const byApplication of pending.values()) {
    for (const counts of byApplication.values()) {
      sum.rows += 1;
      sum.requests += counts.requests;
      sum.bytes += counts.bytes;
    }
  }
  return sum;
}
