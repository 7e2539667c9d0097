// A certificate the CA has just issued exists nowhere but in this process
// until its step is written: the CA will not hand it out again, and the next
// check would order another one. So that write is tried again, with backoff,
// while the database is briefly away (a restart, a failover), instead of
// giving the certificate up at the first refused connection.
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs } from '@cds/core';

export interface KeepTryingOptions {
  /** Give up (throw the last error) once this long has passed since the first try. */
  forMs: number;
  /** The first pause; it doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Told of every failed try that will be tried again. */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  /** Whether a failure is worth another try (default: every one); one that is not is thrown at once. */
  retryIf?: (err: unknown) => boolean;
  /** Stop trying (throw the last error) when this says so, e.g. the process is stopping. */
  stopped?: () => boolean;
  now?: () => number;
  wait?: (ms: number) => Promise<unknown>;
}

export async function keepTrying<T>(work: () => Promise<T>, opts: KeepTryingOptions): Promise<T> {
  const now = opts.now ?? Date.now;
  const wait = opts.wait ?? sleep;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      const left = opts.forMs - (now() - started);
      if (left <= 0 || opts.stopped?.() || (opts.retryIf && !opts.retryIf(err))) throw err;
      const pause = Math.min(backoffDelayMs(attempt - 1, opts.initialDelayMs ?? 250, opts.maxDelayMs ?? 5_000), left);
      opts.onRetry?.(err, attempt, pause);
      await wait(pause);
    }
  }
}
