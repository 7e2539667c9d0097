// A bus consumer's counts and lag, taken around its message handler: the
// handler's promise is the outcome the bus acts on (resolves: ack; throws:
// retry; a dead letter after the last retry only the bus knows, and reports
// through meteredDeadLetters).
import { consumerMetrics } from './definitions';

/** The outcomes a metered handler counts, each present from the start at zero. */
export const CONSUMER_OUTCOMES = { ack: 'ack', retry: 'retry', deadLetter: 'dead_letter' } as const;

export interface MeteredHandlerOptions<M> {
  /** When the message was written, for the lag; null when it carries no time or is a redelivery (its lag counted once). */
  writtenAt?: (message: M) => Date | null;
  now?: () => Date;
}

/** Wraps `handler` so that consumer `consumer` counts every message by outcome and observes the lag of those that carry their time. */
export function meteredHandler<M>(consumer: string, handler: (message: M) => Promise<void>, opts: MeteredHandlerOptions<M> = {}): (message: M) => Promise<void> {
  const m = consumerMetrics();
  for (const outcome of Object.values(CONSUMER_OUTCOMES)) m.consumed.inc({ consumer, outcome }, 0);
  if (opts.writtenAt) m.lag.zero({ consumer });
  const now = opts.now ?? (() => new Date());
  return async (message) => {
    const written = opts.writtenAt?.(message)?.getTime();
    if (written !== undefined && Number.isFinite(written)) m.lag.observe({ consumer }, Math.max(0, now().getTime() - written) / 1000);
    try {
      await handler(message);
    } catch (err) {
      m.consumed.inc({ consumer, outcome: CONSUMER_OUTCOMES.retry });
      throw err;
    }
    m.consumed.inc({ consumer, outcome: CONSUMER_OUTCOMES.ack });
  };
}

/** The bus's dead-letter hook (SubscribeOptions.onDeadLetter) for consumer `consumer`: counts outcome `dead_letter`. */
export function meteredDeadLetters(consumer: string): () => void {
  const m = consumerMetrics();
  m.consumed.inc({ consumer, outcome: CONSUMER_OUTCOMES.deadLetter }, 0);
  return () => m.consumed.inc({ consumer, outcome: CONSUMER_OUTCOMES.deadLetter });
}
