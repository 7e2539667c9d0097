// A loop of passes, one at a time, that can be woken: a kick asks for a pass
// soon (at once, or right after the pass under way), wakeIn for one within a
// given time (the soonest request wins), runNow for one now whose result the
// caller awaits; after each pass the loop's own timer brings the next one.
// Failed passes can back off. Stopping waits for the pass under way. The
// outbox relay, the checker's scheduler, the dispatcher's delivery worker and
// the edge's change feed are such loops. No I/O: the work is the caller's.
import { backoffDelayMs } from './backoff';

export interface WakeableLoopOptions<T> {
  /** One pass. A throw is a failed pass: told to onFailure, and the loop goes on. */
  pass: () => Promise<T>;
  /** The pause after a pass, unless `next` says otherwise or something woke the loop meanwhile. */
  intervalMs: number;
  /** The pause after a successful pass, from its result (0: at once). Default intervalMs. */
  next?: (result: T) => number;
  /**
   * Set: after failures in a row the pause doubles from 2 × intervalMs up to
   * this ceiling, and nothing but runNow shortens it (waking a loop whose
   * trouble is outside it would only fail again). Unset: a failed pass is
   * followed by intervalMs, and the loop can still be woken sooner.
   */
  maxBackoffMs?: number;
  /** A pass failed: how many in a row, and the pause before the next. */
  onFailure?: (err: unknown, failures: number, delayMs: number) => void;
  /** The loop's timer does not keep the process alive. */
  unref?: boolean;
}

export class WakeableLoop<T> {
  private timer: NodeJS.Timeout | null = null;
  /** When the timer fires (Date.now() time); Infinity when none is set. */
  private timerAt = Number.POSITIVE_INFINITY;
  /** Passes run one after the other through this chain, whoever asks. */
  private chain: Promise<unknown> = Promise.resolve();
  /** Passes running or waiting their turn in the chain. */
  private queued = 0;
  /** Woken during a pass: another one right after it. */
  private again = false;
  private failures = 0;
  private stopped = false;

  constructor(private readonly opts: WakeableLoopOptions<T>) {}

  /** A pass soon: at once, or right after the one under way. */
  kick(): void {
    if (this.stopped || this.backingOff()) return;
    if (this.queued > 0) this.again = true;
    else this.wakeIn(0);
  }

  /** A pass within `delayMs` at the latest; a sooner one already planned stays. */
  wakeIn(delayMs: number): void {
    if (this.stopped || this.backingOff()) return;
    const wait = Math.max(0, delayMs);
    if (this.timer && this.timerAt <= Date.now() + wait) return;
    this.setTimer(wait);
  }

  /** A pass now, after the one under way (even while backing off); resolves with its result, rejects with its error. */
  runNow(): Promise<T> {
    this.queued += 1;
    const run = this.chain.then(() => this.runPass());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** No more passes of the loop's own; resolves once the passes under way or waiting have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await this.chain;
  }

  /** Between failed passes of a loop that backs off: only its own timer (or runNow) brings the next pass. */
  private backingOff(): boolean {
    return this.opts.maxBackoffMs !== undefined && this.failures > 0 && this.queued === 0;
  }

  private async runPass(): Promise<T> {
    this.again = false;
    let result: T;
    try {
      result = await this.opts.pass();
    } catch (err) {
      this.queued -= 1;
      this.failures += 1;
      const { maxBackoffMs, intervalMs } = this.opts;
      const delayMs = maxBackoffMs === undefined ? intervalMs : backoffDelayMs(this.failures, intervalMs, maxBackoffMs);
      this.opts.onFailure?.(err, this.failures, delayMs);
      if (maxBackoffMs === undefined) this.wakeIn(delayMs);
      else if (!this.stopped) this.setTimer(delayMs);
      throw err;
    }
    this.queued -= 1;
    this.failures = 0;
    this.wakeIn(this.again ? 0 : (this.opts.next?.(result) ?? this.opts.intervalMs));
    return result;
  }

  private setTimer(delayMs: number): void {
    this.clearTimer();
    this.timerAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      if (this.queued > 0) this.again = true;
      else this.runNow().catch(() => undefined);
    }, delayMs);
    if (this.opts.unref) this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
  }
}
