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
import { errorMessage } from '@cds/core';
import { silentLogger, type Bus, type MessagingLogger } from './bus';
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
  /** Oldest unpublished rows first. */
  unpublished(limit: number): Promise<OutboxEntry[]>;
  markPublished(ids: string[], at: Date): Promise<void>;
  recordFailedAttempt(ids: string[]): Promise<void>;
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
  logger?: MessagingLogger;
}

export interface OutboxRelay {
  /** Stops polling and waits for a pass in progress. */
  stop(): Promise<void>;
  /** Publish soon: the writer calls it right after its transaction committed. */
  kick(): void;
  /** Runs passes until no row is left; rejects with the error of a pass that failed. */
  drain(): Promise<void>;
}

interface PassResult {
  rows: number;
  /** Transient trouble (broker, database): back off before the next pass. */
  failure: unknown;
  /** A row the catalog refuses; it stays unpublished (and logged) until fixed. */
  refused: MessageValidationError | null;
}

export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { source, bus } = opts;
  const intervalMs = opts.intervalMs ?? 200;
  const batchSize = opts.batchSize ?? 100;
  const maxBackoffMs = opts.maxBackoffMs ?? 5000;
  const logger = opts.logger ?? silentLogger;

  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let passing = false;
  let kicked = false;
  let failures = 0;
  // Passes run one after the other through this chain, whoever asks (timer, kick, drain).
  let chain: Promise<unknown> = Promise.resolve();
  // Refused rows are logged once per process, not at every pass.
  const reportedRefusals = new Set<string>();

  async function pass(): Promise<PassResult> {
    if (!bus.healthy()) return { rows: 0, failure: new BusUnavailableError('the bus is not connected'), refused: null };
    let rows: OutboxEntry[];
    try {
      rows = await source.unpublished(batchSize);
    } catch (err) {
      return { rows: 0, failure: err, refused: null };
    }
    if (rows.length === 0) return { rows: 0, failure: null, refused: null };

    // Published back to back in row order: one channel keeps that order at the broker.
    const outcomes = await Promise.allSettled(rows.map((row) => bus.publish(row.routingKey, row.payload, { messageId: row.id, writtenAt: row.createdAt })));
    const published: string[] = [];
    const failed: string[] = [];
    let failure: unknown = null;
    let refused: MessageValidationError | null = null;
    for (const [i, outcome] of outcomes.entries()) {
      const row = rows[i] as OutboxEntry;
      if (outcome.status === 'fulfilled') {
        published.push(row.id);
        continue;
      }
      failed.push(row.id);
      if (outcome.reason instanceof MessageValidationError) {
        refused = outcome.reason;
        if (!reportedRefusals.has(row.id)) {
          reportedRefusals.add(row.id);
          logger.error('outbox row refused by the message catalog; it stays unpublished', { outbox_id: row.id, error: outcome.reason.message });
        }
      } else {
        failure ??= outcome.reason;
      }
    }
    try {
      if (published.length > 0) await source.markPublished(published, new Date());
      if (failed.length > 0) await source.recordFailedAttempt(failed);
    } catch (err) {
      // Rows confirmed but not marked are published again later: a duplicate, not a loss.
      failure ??= err;
    }
    return { rows: rows.length, failure, refused };
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      runPass().catch((err: unknown) => logger.error('outbox relay pass crashed', { error: errorMessage(err) }));
    }, delayMs);
  }

  function runPass(): Promise<PassResult> {
    const next = chain.then(async () => {
      passing = true;
      kicked = false;
      const result = await pass();
      passing = false;
      if (result.failure) {
        failures += 1;
        const delayMs = Math.min(intervalMs * 2 ** failures, maxBackoffMs);
        logger.warn('outbox relay pass failed, backing off', { failures, delay_ms: delayMs, error: errorMessage(result.failure) });
        schedule(delayMs);
      } else {
        failures = 0;
        // A full batch (beyond refused rows) or a kick during the pass: go again at once.
        const more = result.rows === batchSize && !result.refused;
        schedule(more || kicked ? 0 : intervalMs);
      }
      return result;
    });
    chain = next.catch(() => undefined);
    return next;
  }

  schedule(0);

  return {
    kick() {
      if (stopped) return;
      if (passing) kicked = true;
      else if (failures === 0) schedule(0);
      // While backing off the scheduled pass comes soon enough.
    },
    async drain() {
      for (;;) {
        const result = await runPass();
        if (result.failure) throw result.failure;
        if (result.refused) throw result.refused;
        if (result.rows === 0) return;
      }
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await chain;
    },
  };
}
