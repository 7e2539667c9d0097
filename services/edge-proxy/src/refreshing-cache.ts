// The edge's caches (routes, certificates, signing keys) share one policy.
// Entries are dropped when they change (the change feed, the `domain.changed`
// fan-out) and are otherwise current as of the feed's last successful read
// (`freshSince`): while the feed runs, a cached entry is never reloaded on a
// timer, so database reads follow changes, not the number of names served.
// An entry's age counts from its load or the feed's last read, whichever is
// later: younger than `softTtlMs` it is used as is; older (the feed has
// stalled) it is still used but starts one background reload; older than
// `hardTtlMs` it waits for a reload. When a reload fails (the database is
// away) the last value is used however old it is: the edge keeps serving what
// it knows.
// "Nothing for this key" (`absent.value`: an unknown name) is kept apart in a
// NegativeCache for at most 2 s, or answered at once when `absent.certain`
// says so (a name no live domain has), so random names cost no reads and
// cannot evict hot entries.
import { LRUCache } from 'lru-cache';
import { NegativeCache } from './negative-cache';

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
  absent?: AbsentOptions<V>;
  /** Every load's outcome, for the control-plane health. */
  onLoad?: (ok: boolean, error?: unknown) => void;
}

interface Entry<V> {
  value: V;
  loadedAt: number;
  expiresAt: number;
}

export class RefreshingCache<V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly negatives: NegativeCache | null;
  /** Loads under way. invalidate() drops a key's load: when it ends it must not store its (older) answer. */
  private readonly loading = new Map<string, Promise<V>>();
  private readonly now: () => number;

  constructor(private readonly opts: RefreshingCacheOptions<V>) {
    this.entries = new LRUCache({ max: opts.max });
    this.now = opts.now ?? Date.now;
    this.negatives = opts.absent ? new NegativeCache({ max: opts.absent.max, ttlMs: opts.absent.ttlMs, now: this.now }) : null;
  }

  /** The value without waiting when one is usable now (starting a background reload when it is old); else undefined. */
  peek(key: string): V | undefined {
    return this.usable(key, true);
  }

  /**
   * The usable value, or the value after a reload; a failed reload falls back to the last value, and throws only
   * when there is none. Callers peek() first: get() does not ask `absent.certain` again (peek did, and the read
   * budget behind it must not be spent twice for one lookup).
   */
  async get(key: string): Promise<V> {
    const usable = this.usable(key, false);
    if (usable !== undefined) return usable;
    try {
      return await this.reload(key);
    } catch (err) {
      const stale = this.entries.get(key);
      if (stale) return stale.value;
      if (this.opts.absent && this.negatives!.hadAbsent(key)) return this.opts.absent.value;
      throw err;
    }
  }

  private usable(key: string, askCertain: boolean): V | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      if (this.now() >= entry.expiresAt) return undefined;
      const age = this.now() - Math.max(entry.loadedAt, this.opts.freshSince?.() ?? -Infinity);
      if (age < this.opts.softTtlMs) return entry.value;
      if (age < this.opts.hardTtlMs) {
        this.reload(key).catch(() => undefined);
        return entry.value;
      }
      return undefined;
    }
    const absent = this.opts.absent;
    if (absent && (this.negatives!.has(key) || (askCertain && absent.certain?.(key)))) return absent.value;
    return undefined;
  }

  /** Forgets the key: the next get() loads it again. */
  invalidate(key: string): void {
    this.entries.delete(key);
    this.negatives?.forget(key);
    this.loading.delete(key);
  }

  /** Forgets every cached value `changed` picks (all routes of an application). */
  invalidateWhere(changed: (value: V) => boolean): void {
    const keys: string[] = [];
    for (const [key, entry] of this.entries.entries()) if (changed(entry.value)) keys.push(key);
    for (const key of keys) this.invalidate(key);
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.invalidate(key);
    this.negatives?.clear();
    this.loading.clear();
  }

  /** Entries kept (absent keys not counted). */
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
    this.entries.set(key, { value, loadedAt, expiresAt: this.opts.expiresAt?.(value) ?? Infinity });
  }
}
