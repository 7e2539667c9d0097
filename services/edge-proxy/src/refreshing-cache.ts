// The edge's caches (routes, certificates, signing keys) share one policy:
// a hit younger than `softTtlMs` is used as is; an older one is still used but
// starts one background reload; one older than `hardTtlMs` waits for a reload.
// When a reload fails (the database is away) the last value is used however
// old it is: the edge keeps serving what it knows.
import { LRUCache } from 'lru-cache';

export interface RefreshingCacheOptions<V> {
  load: (key: string) => Promise<V>;
  softTtlMs: number;
  hardTtlMs: number;
  /** Other TTLs for some values (a cached "none" that must not hide a new certificate for long). */
  ttlFor?: (value: V) => { softTtlMs: number; hardTtlMs: number } | undefined;
  /** Most entries kept; the least recently used go first. */
  max: number;
  now?: () => number;
  /** Every load's outcome, for the control-plane health. */
  onLoad?: (ok: boolean, error?: unknown) => void;
}

interface Entry<V> {
  value: V;
  loadedAt: number;
  softTtlMs: number;
  hardTtlMs: number;
}

export class RefreshingCache<V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<string, Entry<V>>;
  /** Loads under way. invalidate() drops a key's load: when it ends it must not store its (older) answer. */
  private readonly loading = new Map<string, Promise<V>>();
  private readonly now: () => number;

  constructor(private readonly opts: RefreshingCacheOptions<V>) {
    this.entries = new LRUCache({ max: opts.max });
    this.now = opts.now ?? Date.now;
  }

  /** The value without waiting when one is usable now (starting a background reload when it is old); else undefined. */
  peek(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const age = this.now() - entry.loadedAt;
    if (age < entry.softTtlMs) return entry.value;
    if (age < entry.hardTtlMs) {
      this.reload(key).catch(() => undefined);
      return entry.value;
    }
    return undefined;
  }

  /** peek(), or the value after a reload; a failed reload falls back to the stale value, and throws only when there is none. */
  async get(key: string): Promise<V> {
    const usable = this.peek(key);
    if (usable !== undefined) return usable;
    try {
      return await this.reload(key);
    } catch (err) {
      const stale = this.entries.get(key);
      if (stale) return stale.value;
      throw err;
    }
  }

  /** Forgets the key: the next get() loads it again. */
  invalidate(key: string): void {
    this.entries.delete(key);
    this.loading.delete(key);
  }

  clear(): void {
    for (const key of this.entries.keys()) this.invalidate(key);
  }

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
          const ttl = this.opts.ttlFor?.(value) ?? this.opts;
          this.entries.set(key, { value, loadedAt: started, softTtlMs: ttl.softTtlMs, hardTtlMs: ttl.hardTtlMs });
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
}
