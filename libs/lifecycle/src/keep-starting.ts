// A split-mode service that cannot reach the database at start keeps trying,
// alive (/healthz) and not ready (/readyz 503), instead of exiting: Kubernetes
// would otherwise restart it with a growing back-off, and a rollout during a
// database failover would stall on pods in CrashLoopBackOff.
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs, errorMessage } from '@cds/core';
import type { Logger } from '@cds/logging';

/** Pauses between tries: 0.5 s doubling up to 5 s, so a service is ready within seconds of its database. */
export const START_RETRY = { initialMs: 500, maxMs: 5_000 };

export interface KeepStartingOptions {
  logger: Logger;
  delays?: { initialMs: number; maxMs: number };
  wait?: (ms: number) => Promise<unknown>;
}

/** Runs `attempt` until it succeeds; each failure is logged with `what` the service waits for. */
export async function keepStarting<T>(what: string, attempt: () => Promise<T>, opts: KeepStartingOptions): Promise<T> {
  const { initialMs, maxMs } = opts.delays ?? START_RETRY;
  const wait = opts.wait ?? sleep;
  for (let failures = 0; ; failures++) {
    try {
      return await attempt();
    } catch (err) {
      const delayMs = backoffDelayMs(failures, initialMs, maxMs);
      opts.logger.warn(`waiting for ${what}`, { error: errorMessage(err), attempt: failures + 1, retry_in_ms: delayMs });
      await wait(delayMs);
    }
  }
}
