// The edge's caches (routes, certificates, signing keys) share one policy.
// Entries are dropped when they change (the change feed, the `domain.changed`
// fan-out) and are otherwise current as of the feed's last successful read
// (`freshSince`): while the feed runs, a cached entry is not reloaded on a
// short timer, so database reads follow changes, not the number of names served.
// An entry's age counts from its load or the feed's last read, whichever is
// later: younger than `softTtlMs` it is used as is; older (the feed has
// stalled) it is still used but starts one background reload; older than
// `hardTtlMs` it waits for a reload. Whatever the feed says, an entry loaded
// `maxAgeMs` ago (EDGE_CACHE_MAX_AGE) waits for a reload, and one past 90 % of
// that starts one in the background: a change the feed never brought is served
// for at most that long. When a reload fails (the database is away) the last
// value is used however old it is: the edge keeps serving what it knows.
// A dropped entry is kept, marked changed (never used again), only to say the
// key is a real one: reading it is not a miss. So is a key a change names that
// the cache did not hold (a domain created a moment ago), when the cache has an
// absent value to mark it with. A miss (any other key held for nothing) is read
// only while `missBudget` allows; past it get() throws ReadBudgetSpent.
// "Nothing for this key" (`absent.value`: an unknown name) is kept apart in a
// NegativeCache for at most 2 s, or answered at once when `absent.certain`
// says so (a name no live domain has), so random names cost no reads and
// cannot evict hot entries.
import { LRUCache } from 'lru-cache';
import { NegativeCache } from './negative-cache';
import { ReadBudgetSpent } from './read-budget';

/** EDGE_CACHE_MAX_AGE's default: 5 minutes. */
export const DEFAULT_CACHE_MAX_AGE_MS = 300_000;

/** Past this share of the maximum age an entry in use is reloaded in the background, so that hot entries never wait. */
const MAX_AGE_REFRESH_SHARE = 0.9;

export interface AbsentOptions<V> {
  /** The value that means nothing is there; loads that return it are remembered apart. */
  value: V;
  /** Most absent keys remembered. */
  max: number;
  ttlMs?: number;
  /** True when the key is certainly absent now: answered without a load. */
  certain?: (key: string) => boolean;
}

export interface RefreshingCacheOptions<V> {
  load: (key: string) => Promise<V>;
  softTtlMs: number;
  hardTtlMs: number;
  /** When a value stops being usable whatever the feed says (a certificate's notAfter): then it is loaded again. */
  expiresAt?: (value: V) => number;
  /** Most entries kept; the least recently used go first. */
  max: number;
  now?: () => number;
  /** When every entry not invalidated since was last known current (the change feed's last read); entries age from then. */
  freshSince?: () => number;
  /** Loaded this long ago, an entry is read again whatever `freshSince` says (EDGE_CACHE_MAX_AGE; default 5 min). */
  maxAgeMs?: number;
  /** The edge's budget for reads of keys held for nothing, asked with the key; none: such keys are always read. */
  missBudget?: { take(key: string): boolean };
  absent?: AbsentOptions<V>;
  /** Every load's outcome, for the control-plane health. */
  onLoad?: (ok: boolean, error?: unknown) => void;
}

interface Entry<V> {
  value: V;
  loadedAt: number;
  expiresAt: number;
  /** Dropped by a change: never used, kept only to say the key was held. */
  changed: boolean;
}

export class RefreshingCache<V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly negatives: NegativeCache | null;
  /** Loads under way. invalidate() drops a key's load: when it ends it must not store its (older) answer. */
  private readonly loading = new Map<string, Promise<V>>();
  private readonly now: () => number;
  private readonly maxAgeMs: number;

  constructor(private readonly opts: RefreshingCacheOptions<V>) {
    this.entries = new LRUCache({ max: opts.max });
    this.now = opts.now ?? Date.now;
    this.maxAgeMs = opts.maxAgeMs ?? DEFAULT_CACHE_MAX_AGE_MS;
    this.negatives = opts.absent ? new NegativeCache({ max: opts.absent.max, ttlMs: opts.absent.ttlMs, now: this.now }) : null;
  }

  /** The value without waiting when one is usable now (starting a background reload when it is old); else undefined. */
  peek(key: string): V | undefined {
    return this.usable(key, true);
  }

  /**
   * The usable value, or the value after a reload; a failed reload falls back to the last value, and throws only
   * when there is none. Callers peek() first: get() does not ask `absent.certain` again (peek did, and the read
   * budget behind it must not be spent twice for one lookup). A miss past `missBudget` throws ReadBudgetSpent
   * without a read.
   */
  async get(key: string): Promise<V> {
    const usable = this.usable(key, false);
    if (usable !== undefined) return usable;
    // A load under way is joined whatever the budget: it costs no other read.
    if (this.opts.missBudget && !this.entries.has(key) && !this.loading.has(key) && !this.opts.missBudget.take(key)) throw new ReadBudgetSpent(key);
    try {
      return await this.reload(key);
    } catch (err) {
      const stale = this.entries.get(key);
      if (stale && !stale.changed) return stale.value;
      if (this.opts.absent && this.negatives!.hadAbsent(key)) return this.opts.absent.value;
      throw err;
    }
  }

  private usable(key: string, askCertain: boolean): V | undefined {
    const entry = this.entries.get(key);
    if (entry && !entry.changed) {
      const now = this.now();
      const held = now - entry.loadedAt;
      if (now >= entry.expiresAt || held >= this.maxAgeMs) return undefined;
      const age = now - Math.max(entry.loadedAt, this.opts.freshSince?.() ?? -Infinity);
      if (age >= this.opts.hardTtlMs) return undefined;
      if (age >= this.opts.softTtlMs || held >= this.maxAgeMs * MAX_AGE_REFRESH_SHARE) this.reload(key).catch(() => undefined);
      return entry.value;
    }
    const absent = this.opts.absent;
    if (absent && (this.negatives!.has(key) || (askCertain && absent.certain?.(key)))) return absent.value;
    return undefined;
  }

  /** Forgets the key's value: the next get() loads it again, as a key that changed (not a miss). */
  invalidate(key: string): void {
    const entry = this.entries.peek(key);
    if (entry) entry.changed = true;
    else if (this.opts.absent) this.entries.set(key, { value: this.opts.absent.value, loadedAt: -Infinity, expiresAt: -Infinity, changed: true });
    this.negatives?.forget(key);
    this.loading.delete(key);
  }

  /** Forgets every cached value `changed` picks (all routes of an application). */
  invalidateWhere(changed: (value: V) => boolean): void {
    const keys: string[] = [];
    for (const [key, entry] of this.entries.entries()) if (!entry.changed && changed(entry.value)) keys.push(key);
    for (const key of keys) this.invalidate(key);
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.invalidate(key);
    this.negatives?.clear();
    this.loading.clear();
  }

  /** Keys held (absent keys not counted), those whose value a change dropped included. */
  get size(): number {
    return this.entries.size;
  }

  /** One load per key at a time; concurrent callers share it. */
  private reload(key: string): Promise<V> {
    const running = this.loading.get(key);
    if (running) return running;
    const started = this.now();
    const load: Promise<V> = this.opts.load(key).then(
      (value) => {
        if (this.loading.get(key) === load) {
          this.loading.delete(key);
          this.store(key, value, started);
        }
        this.opts.onLoad?.(true);
        return value;
      },
      (err: unknown) => {
        if (this.loading.get(key) === load) this.loading.delete(key);
        this.opts.onLoad?.(false, err);
        throw err;
      },
    );
    this.loading.set(key, load);
    return load;
  }

  private store(key: string, value: V, loadedAt: number): void {
    if (this.opts.absent && value === this.opts.absent.value) {
      this.entries.delete(key);
      this.negatives!.remember(key, loadedAt);
      return;
    }
    this.negatives?.forget(key);
    this.entries.set(key, { value, loadedAt, expiresAt: this.opts.expiresAt?.(value) ?? Infinity, changed: false });
  }
}
