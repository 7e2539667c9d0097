// The ACME HTTP-01 challenges an edge answers, kept in memory: token → key
// authorization of every challenge row. The table is small (a row lives while
// its order is validated, and the checker removes any older than an hour), so
// each refresh reads it whole: rows deleted since the last read (order done,
// domain deleted) leave the set with it, and the first read after a start is
// a full load like any other.
//
// Refreshes happen on demand: a token the set lacks waits for the next
// refresh that starts after it was asked, and refreshes start at most every
// 200 ms. The checker writes a challenge before it asks the CA to validate
// it, so that refresh finds a real token. One read answers every request
// waiting for it: a flood of random tokens costs at most 5 reads a second
// and never delays a real token by more than one refresh. No token is
// remembered as unknown (DECISIONS §5 allows 2 s): each waits for a read.
import type { DataStore } from '@cds/data';

/** Refreshes start at most this often. */
export const REFRESH_INTERVAL_MS = 200;
/** A token the set holds is answered without a read while the set is younger than this (a deleted challenge may be answered that long). */
export const SET_FRESH_MS = 2_000;
/** Requests waiting for the next refresh; past this (tens of thousands of requests a second) a request is answered "unavailable" at once. */
export const WAITING_MAX = 20_000;
/** Rows a refresh reads at most, newest first (far more than the order budget lets exist). */
export const CHALLENGES_READ_MAX = 10_000;

/** No answer for the token now: too many requests wait, or the read failed and the last set lacks the token. */
export class ChallengesUnavailable extends Error {
  constructor(readonly reason: 'busy' | 'read_failed', cause?: unknown) {
    super(reason === 'busy' ? 'too many ACME challenge requests wait for a refresh' : 'the ACME challenges could not be read', { cause });
    this.name = 'ChallengesUnavailable';
  }
}

interface Waiter {
  token: string;
  resolve: (keyAuthorization: string | null) => void;
  reject: (err: ChallengesUnavailable) => void;
}

export interface PendingChallengesOptions {
  /** Each database read. */
  onRead?: () => void;
  now?: () => number;
  /** Tests lower it. */
  waitingMax?: number;
}

export class PendingChallenges {
  private known = new Map<string, string>();
  /** When the read that gave `known` started. */
  private knownAt = -Infinity;
  private lastStartAt = -Infinity;
  private waiting: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private reading = false;
  private readonly now: () => number;
  private readonly waitingMax: number;

  constructor(
    private readonly store: DataStore,
    private readonly opts: PendingChallengesOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.waitingMax = opts.waitingMax ?? WAITING_MAX;
  }

  /** The key authorization, or null when no challenge has the token; rejects with ChallengesUnavailable. */
  find(token: string): Promise<string | null> {
    const known = this.known.get(token);
    if (known !== undefined && this.now() - this.knownAt < SET_FRESH_MS) return Promise.resolve(known);
    if (this.waiting.length >= this.waitingMax) return Promise.reject(new ChallengesUnavailable('busy'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ token, resolve, reject });
      this.schedule();
    });
  }

  /** Requests waiting for the next refresh. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.timer || this.reading || this.waiting.length === 0) return;
    const wait = Math.max(0, this.lastStartAt + REFRESH_INTERVAL_MS - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, wait);
    this.timer.unref();
  }

  private async refresh(): Promise<void> {
    // Requests that arrive from now on wait for the next refresh: this one may have read before their challenge was written.
    const waiters = this.waiting;
    this.waiting = [];
    this.reading = true;
    const started = this.now();
    this.lastStartAt = started;
    try {
      this.opts.onRead?.();
      this.known = await this.store.run((r) => r.acmeChallenges.keyAuthorizations(CHALLENGES_READ_MAX));
      this.knownAt = started;
      for (const waiter of waiters) waiter.resolve(this.known.get(waiter.token) ?? null);
    } catch (err) {
      // The last set still answers the tokens it holds (a challenge answered a little longer is harmless).
      for (const waiter of waiters) {
        const known = this.known.get(waiter.token);
        if (known !== undefined) waiter.resolve(known);
        else waiter.reject(new ChallengesUnavailable('read_failed', err));
      }
    } finally {
      this.reading = false;
      this.schedule();
    }
  }
}
