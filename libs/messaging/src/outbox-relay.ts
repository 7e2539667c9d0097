// Transactional outbox relay. The data library writes an outbox row in the
// same database transaction as the state change it announces; this relay
// copies committed rows to the bus and marks them published only after the
// broker confirmed them. A broker outage therefore delays messages and loses
// none.
//
// Delivery is at least once. One process never runs two passes at a time, but
// two relay processes (API replicas) can read the same unpublished rows and
// both publish them, and a crash between the confirm and markPublished
// publishes a row again. The row id travels as the messageId, so consumers,
// which are idempotent by messageId, see the duplicate as already handled.
//
// A row the message catalog refuses (a payload no release can publish) never
// blocks the rows after it (DECISIONS §9): the relay sets it aside, kept with
// the reason and counted, and goes on.
import { errorMessage, WakeableLoop } from '@cds/core';
import { silentLogger, type Logger } from '@cds/logging';
import type { Bus } from './bus';
import { BusUnavailableError, MessageValidationError } from './errors';

/** What the relay needs of an outbox row (the data library's OutboxRow has these). */
export interface OutboxEntry {
  id: string;
  routingKey: string;
  payload: unknown;
  /** When the row was written: sent along as the message's writtenAt. */
  createdAt?: Date;
}

/** The outbox table as the relay sees it; the data library's OutboxRepository satisfies it. */
export interface OutboxSource {
  /** Oldest rows still to publish first: neither published nor set aside. */
  unpublished(limit: number): Promise<OutboxEntry[]>;
  markPublished(ids: string[], at: Date): Promise<void>;
  recordFailedAttempt(ids: string[]): Promise<void>;
  /** Marks rows the catalog refuses, with why: kept, and never read by `unpublished` again. */
  setAside(ids: string[], reason: string, at: Date): Promise<void>;
}

export interface OutboxRelayOptions {
  source: OutboxSource;
  bus: Bus;
  /** Poll interval when idle. Default 200 ms. */
  intervalMs?: number;
  /** Rows read per pass. Default 100. */
  batchSize?: number;
  /** Ceiling of the backoff after failed passes. Default 5 s. */
  maxBackoffMs?: number;
  logger?: Logger;
  /** Told how many rows a pass set aside (the metric an alert watches). */
  onSetAside?: (rows: number) => void;
}

export interface OutboxRelay {
  /** Stops polling and waits for a pass in progress. */
  stop(): Promise<void>;
  /** Publish soon: the writer calls it right after its transaction committed. */
  kick(): void;
  /** Runs passes until no row is left to publish; rejects with the error of a pass that failed. */
  drain(): Promise<void>;
}

interface PassResult {
  rows: number;
  /** Transient trouble (broker, database): back off before the next pass. */
  failure: unknown;
}

export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { source, bus } = opts;
  const intervalMs = opts.intervalMs ?? 200;
  const batchSize = opts.batchSize ?? 100;
  const logger = opts.logger ?? silentLogger;
  const onSetAside = opts.onSetAside ?? (() => undefined);

  async function pass(): Promise<PassResult> {
    if (!bus.healthy()) return { rows: 0, failure: new BusUnavailableError('the bus is not connected') };
    let rows: OutboxEntry[];
    try {
      rows = await source.unpublished(batchSize);
    } catch (err) {
      return { rows: 0, failure: err };
    }
    if (rows.length === 0) return { rows: 0, failure: null };

    // Published back to back in row order: one channel keeps that order at the broker.
    const outcomes = await Promise.allSettled(rows.map((row) => bus.publish(row.routingKey, row.payload, { messageId: row.id, writtenAt: row.createdAt })));
    const published: string[] = [];
    const failed: string[] = [];
    // Refused rows by reason: rows refused for the same reason are set aside together.
    const refused = new Map<string, OutboxEntry[]>();
    let failure: unknown = null;
    for (const [i, outcome] of outcomes.entries()) {
      const row = rows[i] as OutboxEntry;
      if (outcome.status === 'fulfilled') {
        published.push(row.id);
      } else if (outcome.reason instanceof MessageValidationError) {
        const same = refused.get(outcome.reason.message);
        if (same) same.push(row);
        else refused.set(outcome.reason.message, [row]);
      } else {
        failed.push(row.id);
        failure ??= outcome.reason;
      }
    }
    try {
      const at = new Date();
      if (published.length > 0) await source.markPublished(published, at);
      for (const [reason, aside] of refused) {
        await source.setAside(aside.map((row) => row.id), reason, at);
        for (const row of aside) logger.error('outbox row refused by the message catalog, set aside', { outbox_id: row.id, routing_key: row.routingKey, error: reason });
        onSetAside(aside.length);
      }
      if (failed.length > 0) await source.recordFailedAttempt(failed);
    } catch (err) {
      // Rows confirmed but not marked are published again later: a duplicate, not a loss.
      // Refused rows not yet set aside are refused again at the next pass.
      failure ??= err;
    }
    return { rows: rows.length, failure };
  }

  // A failed pass throws its failure: the loop backs off, and drain() rejects with it.
  const loop = new WakeableLoop<number>({
    pass: async () => {
      const result = await pass();
      if (result.failure) throw result.failure;
      return result.rows;
    },
    intervalMs,
    // A full batch (set-aside rows included: they are out of the way now): go again at once.
    next: (rows) => (rows === batchSize ? 0 : intervalMs),
    maxBackoffMs: opts.maxBackoffMs ?? 5000,
    onFailure: (err, failures, delayMs) => logger.warn('outbox relay pass failed, backing off', { failures, delay_ms: delayMs, error: errorMessage(err) }),
  });
  loop.kick();

  return {
    // While backing off the scheduled pass comes soon enough.
    kick: () => loop.kick(),
    async drain() {
      let rows: number;
      do rows = await loop.runNow();
      while (rows > 0);
    },
    stop: () => loop.stop(),
  };
}
