// The one way tests wait for something that happens in the background: poll a
// probe until it gives a truthy value, or fail naming what was awaited.
import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** How long to keep polling (default 20 s). */
  timeoutMs?: number;
  /** Pause between two probes (default 50 ms). */
  intervalMs?: number;
  /** What the world looked like at the timeout, added to the error. */
  explain?: () => string | Promise<string>;
}

/** What a probe gives once the condition holds. */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** The awaited condition did not hold in time. */
export class EventuallyTimeoutError extends Error {
  constructor(readonly what: string, readonly timeoutMs: number, explanation?: string) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}${explanation ? `\n${explanation}` : ''}`);
    this.name = 'EventuallyTimeoutError';
  }
}

/**
 * Polls `probe` until it returns a truthy value and returns that value. A probe
 * that throws fails at once (catch inside the probe what is expected to fail
 * for a while, like a connection to a server still starting).
 */
export async function eventually<T>(what: string, probe: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 20_000, intervalMs = 50, explain } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() >= deadline) throw new EventuallyTimeoutError(what, timeoutMs, explain ? await explain() : undefined);
    await sleep(intervalMs);
  }
}
