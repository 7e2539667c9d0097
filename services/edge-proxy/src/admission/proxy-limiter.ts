// Proxied-request limits per application (per second and per minute) shared by
// every edge replica. The budget of each clock-aligned window lives in the
// database's rate counters; an edge takes it in small batches (a reservation
// adds the batch to the shared count in one upsert) and spends them locally, so
// a request costs no database round trip except one in every batch. Replicas
// together never let more than the limit through; what one replica reserved
// and did not spend by the end of the window is lost, which is at most
// `batch - 1` requests per replica (batches shrink as the window fills).
// When the database cannot be reached an edge counts alone for the window.
import type { DataStore } from '@cds/data';
import type { RouteApplication } from '../caches/route-table';

export const PROXY_LIMITS = {
  perSecond: { window: 1, name: 'proxied_requests_per_second', key: 'edge:rps:' },
  perMinute: { window: 60, name: 'proxied_requests_per_minute', key: 'edge:rpm:' },
} as const;
export type ProxyLimitName = (typeof PROXY_LIMITS)[keyof typeof PROXY_LIMITS]['name'];

export interface LimitVerdict {
  allowed: boolean;
  /** Seconds until the refusing window ends (allowed: 0). */
  retryAfter: number;
  limit?: ProxyLimitName;
}

const ALLOWED: LimitVerdict = Object.freeze({ allowed: true, retryAfter: 0 });

/** The size of the next reservation: about 5 % of the limit (at most 1000), smaller as the shared count nears it. */
export function batchSize(limit: number, remaining: number | null): number {
  const base = Math.min(1000, Math.max(1, Math.ceil(limit / 20)));
  if (remaining === null || remaining >= base * 4) return base;
  return Math.max(1, Math.floor(remaining / 4));
}

interface WindowState {
  start: number;
  resetAt: number;
  /** Reserved and not yet spent by this edge. */
  allowance: number;
  /** Spent by this edge in this window (the local-only fallback counts with it). */
  used: number;
  /** The shared count reached the limit: nothing more to reserve in this window. */
  exhausted: boolean;
  /** The database failed in this window: count alone. */
  localOnly: boolean;
  remaining: number | null;
  reserving: Promise<void> | null;
}

type Spec = (typeof PROXY_LIMITS)[keyof typeof PROXY_LIMITS];

export interface ProxyLimiterOptions {
  store: DataStore;
  now?: () => number;
  /** Reservation failures (the database away). */
  onError?: (error: unknown) => void;
}

interface ApplicationWindows {
  perSecond: WindowState;
  perMinute: WindowState;
}

function emptyWindow(): WindowState {
  return { start: -1, resetAt: 0, allowance: 0, used: 0, exhausted: false, localOnly: false, remaining: null, reserving: null };
}

export class ProxyLimiter {
  private readonly windows = new Map<string, ApplicationWindows>();
  private readonly now: () => number;

  constructor(private readonly opts: ProxyLimiterOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** A verdict at once when this edge holds budget (the common case), else after one reservation. */
  check(app: RouteApplication): LimitVerdict | Promise<LimitVerdict> {
    let windows = this.windows.get(app.id);
    if (!windows) this.windows.set(app.id, (windows = { perSecond: emptyWindow(), perMinute: emptyWindow() }));
    const now = this.now();
    const second = this.take(PROXY_LIMITS.perSecond, app.id, app.limits.proxied_requests_per_second, windows.perSecond, now);
    if (second !== true) return second instanceof Promise ? second.then(() => this.check(app)) : second;
    const minute = this.take(PROXY_LIMITS.perMinute, app.id, app.limits.proxied_requests_per_minute, windows.perMinute, now);
    if (minute === true) return ALLOWED;
    this.refund(windows.perSecond);
    return minute instanceof Promise ? minute.then(() => this.check(app)) : minute;
  }

  /** Drops applications whose windows have ended (called now and then, so idle ones do not stay in memory). */
  sweep(): void {
    const now = this.now();
    for (const [id, { perSecond, perMinute }] of this.windows) {
      if (perMinute.resetAt <= now && perSecond.resetAt <= now && !perSecond.reserving && !perMinute.reserving) this.windows.delete(id);
    }
  }

  /** true: one spent; a verdict: refused; a promise: wait for a reservation, then ask again. */
  private take(spec: Spec, applicationId: string, limit: number, state: WindowState, now: number): true | LimitVerdict | Promise<void> {
    if (now >= state.resetAt) this.restart(state, spec, now);
    if (state.allowance > 0) {
      state.allowance -= 1;
      state.used += 1;
      return true;
    }
    if (state.localOnly) {
      if (state.used < limit) {
        state.used += 1;
        return true;
      }
      return this.refusal(spec, state);
    }
    if (state.exhausted || limit <= 0) return this.refusal(spec, state);
    return (state.reserving ??= this.reserve(spec, applicationId, limit, state));
  }

  private refund(state: WindowState): void {
    if (state.used > 0) {
      state.used -= 1;
      if (!state.localOnly) state.allowance += 1;
    }
  }

  private refusal(spec: Spec, state: WindowState): LimitVerdict {
    return { allowed: false, retryAfter: Math.max(1, Math.ceil((state.resetAt - this.now()) / 1000)), limit: spec.name };
  }

  /** A new clock-aligned window (a reservation still running for the old one sees the start change and keeps out). */
  private restart(state: WindowState, spec: Spec, now: number): void {
    const windowMs = spec.window * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    Object.assign(state, { ...emptyWindow(), start, resetAt: start + windowMs });
  }

  private async reserve(spec: Spec, applicationId: string, limit: number, state: WindowState): Promise<void> {
    const amount = Math.min(batchSize(limit, state.remaining), limit);
    const start = state.start;
    // The window may have moved on while the database answered: then the answer belongs to no one.
    const current = () => state.start === start;
    try {
      const { count } = await this.opts.store.run((r) => r.rateCounters.hit(spec.key + applicationId, spec.window, new Date(start), { amount }));
      if (!current()) return;
      state.allowance += Math.max(0, Math.min(amount, limit - (count - amount)));
      state.remaining = Math.max(0, limit - count);
      if (count >= limit) state.exhausted = true;
    } catch (err) {
      if (current()) state.localOnly = true;
      this.opts.onError?.(err);
    } finally {
      if (current()) state.reserving = null;
    }
  }
}
