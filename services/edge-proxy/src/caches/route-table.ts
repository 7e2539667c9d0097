// What the edge knows of a hostname: the live domain, its application (and
// whether it is suspended) and the application's active origin, read from the
// database in one query and kept in a RefreshingCache. Entries are dropped by
// the change feed (within about a second: the domain, its application, origins
// and certificates) and by the `domain.changed` fan-out (at once); while the
// feed runs they are read again only at EDGE_CACHE_MAX_AGE. A name no live
// domain has is answered from LiveNames, or remembered as unknown for at most
// 2 s; a name held for nothing is read within the edge's budget for misses.
import type { ApplicationStatus, DomainStatus, Limits } from '@cds/core';
import type { DataStore } from '@cds/data';
import { RefreshingCache } from './refreshing-cache';

export interface RouteApplication {
  id: string;
  slug: string;
  status: ApplicationStatus;
  limits: Limits;
}

export interface DomainRoute {
  kind: 'domain';
  domainId: string;
  hostname: string;
  reference: string;
  status: DomainStatus;
  application: RouteApplication;
  /** The application's active origin; null when it has none. */
  originUrl: string | null;
  /** Another domain of the application every request is redirected to once both are ready (DECISIONS §12); null when unset. */
  redirectTo: string | null;
}

export type Route = DomainRoute | { kind: 'unknown' };

export const UNKNOWN_ROUTE: Route = Object.freeze({ kind: 'unknown' });

/** One read; a deleted domain (or one being deleted, or of a deleted application) is unknown. */
export async function loadRoute(store: DataStore, hostname: string): Promise<Route> {
  const row = await store.run((r) => r.edgeReads.route(hostname));
  if (!row) return UNKNOWN_ROUTE;
  return {
    kind: 'domain',
    domainId: row.domainId,
    hostname: row.hostname,
    reference: row.reference,
    status: row.status,
    application: { id: row.applicationId, slug: row.slug, status: row.applicationStatus, limits: row.limits },
    originUrl: row.originUrl,
    redirectTo: row.redirectTo,
  };
}

export interface RouteTableOptions {
  store: DataStore;
  /** Without the feed (stalled), entries are reloaded after these: a change reaches the edge within hardTtlMs anyway. */
  softTtlMs?: number;
  hardTtlMs?: number;
  max?: number;
  /** Unknown names remembered (apart from the routes). */
  maxUnknown?: number;
  /** The change feed's last read (see RefreshingCache). */
  freshSince?: () => number;
  /** True when the name certainly has no live domain (LiveNames, while the feed runs). */
  certainlyUnknown?: (hostname: string) => boolean;
  /** EDGE_CACHE_MAX_AGE and the budget for misses (see RefreshingCache). */
  maxAgeMs?: number;
  missBudget?: { take(key: string): boolean };
  onLoad?: (ok: boolean, error?: unknown) => void;
  /** Each database read. */
  onRead?: () => void;
}

/** A new domain is known, and a status change seen, by every edge within 5 s even without the fan-out. */
export function createRouteTable(opts: RouteTableOptions): RefreshingCache<Route> {
  return new RefreshingCache<Route>({
    load: (hostname) => {
      opts.onRead?.();
      return loadRoute(opts.store, hostname);
    },
    // Above the feed's period (1 s) and a slow read, below the 5 s of the contract.
    softTtlMs: opts.softTtlMs ?? 2_500,
    hardTtlMs: opts.hardTtlMs ?? 4_000,
    max: opts.max ?? 100_000,
    freshSince: opts.freshSince,
    maxAgeMs: opts.maxAgeMs,
    missBudget: opts.missBudget,
    absent: { value: UNKNOWN_ROUTE, max: opts.maxUnknown ?? 100_000, certain: opts.certainlyUnknown },
    onLoad: opts.onLoad,
  });
}
