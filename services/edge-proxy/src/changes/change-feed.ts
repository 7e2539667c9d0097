// The edge's change feed: once a second, one read of what changed since the
// previous read (domains, applications, origins, assertion keys,
// certificates), and only the entries concerned are dropped. Cached entries
// are otherwise current as of the last successful read (freshSince), so
// database reads follow changes and new names, not the number of names served.
// The `domain.changed` fan-out still drops a domain's entries at once; the feed
// alone keeps the 5-second rules (DECISIONS §5) when the bus is down.
// The position is in the database's order of commits (FeedCursor): a change
// is read when it commits, however long after its write. The feed reads on a
// store of its own (one connection), so a pool saturated by other reads
// cannot make it wait, stall it, and turn LiveNames off.
// A failed read changes nothing: the cursor stays, the next read asks for
// everything since, and meanwhile the caches fall back to their TTLs and
// LiveNames stops answering for absent names. A read that finds another
// database (its order went back) drops every cached entry and loads LiveNames
// again.
import { WakeableLoop } from '@cds/core';
import type { DataStore, EdgeChange } from '@cds/data';
import type { AssertionSigner } from '../admission/assertion-signer';
import type { CertificateEntry } from '../caches/certificate-store';
import type { LiveNames } from '../caches/live-names';
import type { RefreshingCache } from '../caches/refreshing-cache';
import type { Route } from '../caches/route-table';
import type { DatabaseReadPurpose } from '../observing/edge-observer';
import { affected, FeedCursor } from './feed-cursor';

/** One read a second: a change reaches every edge within about 1 s. */
export const FEED_PERIOD_MS = 1_000;
/**
 * Without a successful read started this recently, LiveNames no longer vouches for absent names: an unknown
 * name is then never answered from knowledge older than DECISIONS §5's 2 s.
 */
export const FEED_STALE_MS = 2_000;

export interface ChangeFeedOptions {
  /** The feed's own store (reads of the feed and of LiveNames' pages alone). */
  store: DataStore;
  routes: RefreshingCache<Route>;
  certificates: RefreshingCache<CertificateEntry>;
  signer: AssertionSigner;
  names: LiveNames;
  periodMs?: number;
  now?: () => number;
  onLoad?: (ok: boolean, error?: unknown) => void;
  onRead?: (purpose: DatabaseReadPurpose) => void;
  onNamesLoaded?: (count: number, ms: number) => void;
}

export class ChangeFeed {
  private readonly cursor = new FeedCursor();
  private readonly now: () => number;
  /** Edge time at the start of the last successful read. */
  private lastReadAt = -Infinity;
  /** The reads: one at a time, the next one period after the last one ended, whatever its outcome. */
  private readonly loop: WakeableLoop<void>;
  private stopped = false;
  private loadingNames: Promise<void> | null = null;

  constructor(private readonly opts: ChangeFeedOptions) {
    this.now = opts.now ?? Date.now;
    this.loop = new WakeableLoop({ pass: () => this.read(), intervalMs: opts.periodMs ?? FEED_PERIOD_MS, unref: true });
  }

  /** Since when cached entries not dropped are known current. */
  readonly freshSince = (): number => this.lastReadAt;

  /** Whether the last successful read is recent enough to trust LiveNames. */
  healthy(): boolean {
    return this.now() - this.lastReadAt < FEED_STALE_MS;
  }

  /** Whether LiveNames can answer for a name now: fully loaded, and the feed current. */
  private namesAnswer(): boolean {
    return this.opts.names.ready && this.healthy();
  }

  /** True when the name certainly has no live domain: LiveNames answers and lacks the name's hash. */
  readonly certainlyUnknown = (hostname: string): boolean => this.namesAnswer() && !this.opts.names.mightBeLive(hostname);

  /**
   * True when LiveNames answers and holds the name's keyed hash: a live name but for a rare chance collision that
   * nobody can aim for (the key is secret), so reading it spends no miss budget.
   */
  readonly vouchesFor = (hostname: string): boolean => this.namesAnswer() && this.opts.names.mightBeLive(hostname);

  /** The first read; later reads follow each other, one period apart. */
  start(): Promise<void> {
    return this.loop.runNow();
  }

  /** No more reads; resolves once the one under way (and a load of LiveNames) has ended, before the store closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.loop.stop(), this.loadingNames]);
  }

  /** One read and what it drops; never throws (a failure is told to onLoad). */
  private async read(): Promise<void> {
    const started = this.now();
    try {
      this.opts.onRead?.('feed');
      const read = await this.opts.store.run((r) => r.edgeReads.changesSince(this.cursor.since));
      const step = this.cursor.accept(read);
      if ('restarted' in step) this.forgetAll();
      else this.apply(step.changes);
      this.lastReadAt = started;
      this.opts.onLoad?.(true);
      if (!this.stopped && (!this.opts.names.ready || this.opts.names.stale || 'restarted' in step)) this.loadNames();
    } catch (err) {
      this.opts.onLoad?.(false, err);
    }
  }

  private apply(changes: EdgeChange[]): void {
    if (changes.length === 0) return;
    const { hostnames, certificates, applications, keys, live } = affected(changes);
    const { routes, names, signer } = this.opts;
    for (const [hostname, isLive] of live) names.set(hostname, isLive);
    for (const hostname of hostnames) {
      routes.invalidate(hostname);
      this.opts.certificates.invalidate(hostname);
    }
    for (const hostname of certificates) this.opts.certificates.invalidate(hostname);
    if (applications.size > 0) routes.invalidateWhere((route) => route.kind === 'domain' && applications.has(route.application.id));
    for (const applicationId of keys) signer.keysChanged(applicationId);
  }

  /** Another database: nothing cached can be vouched for. */
  private forgetAll(): void {
    this.opts.routes.clear();
    this.opts.certificates.clear();
    this.opts.signer.clear();
  }

  /** Loads LiveNames once the cursor has its position (a name created meanwhile comes by the feed). */
  private loadNames(): void {
    if (this.loadingNames) return;
    const started = this.now();
    this.loadingNames = this.opts.names
      .load((after, limit) => {
        this.opts.onRead?.('names');
        return this.opts.store.run((r) => r.edgeReads.liveHostnames(after, limit));
      })
      .then(
        () => this.opts.onNamesLoaded?.(this.opts.names.size, this.now() - started),
        (err: unknown) => this.opts.onLoad?.(false, err),
      )
      .finally(() => {
        this.loadingNames = null;
      });
  }
}
