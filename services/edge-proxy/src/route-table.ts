// What the edge knows of a hostname: the live domain, its application and the
// application's active origin, read from the database and kept in a
// RefreshingCache. Entries are dropped by the `domain.changed` fan-out and
// refreshed on their own after a few seconds, so origin, limit and key
// changes, which have no fan-out, reach every edge within the hard TTL too.
import type { DomainStatus, Limits } from '@cds/core';
import type { DataStore } from '@cds/data';
import { RefreshingCache } from './refreshing-cache';

export interface RouteApplication {
  id: string;
  slug: string;
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
}

export type Route = DomainRoute | { kind: 'unknown' };

const UNKNOWN: Route = Object.freeze({ kind: 'unknown' });

/** Three small reads; a deleted domain (or one being deleted) is unknown. */
export async function loadRoute(store: DataStore, hostname: string): Promise<Route> {
  return store.run(async (r) => {
    const domain = await r.domains.findLiveByHostname(hostname);
    if (!domain || domain.status === 'deleting') return UNKNOWN;
    const application = await r.applications.findById(domain.applicationId);
    if (!application || application.deletedAt) return UNKNOWN;
    const origin = await r.origins.findActive(domain.applicationId);
    return {
      kind: 'domain',
      domainId: domain.id,
      hostname: domain.hostname,
      reference: domain.reference,
      status: domain.status,
      application: { id: application.id, slug: application.slug, limits: application.limits },
      originUrl: origin?.url ?? null,
    };
  });
}

export interface RouteTableOptions {
  store: DataStore;
  softTtlMs?: number;
  hardTtlMs?: number;
  max?: number;
  onLoad?: (ok: boolean, error?: unknown) => void;
}

/** A new domain is known, and a status change seen, by every edge within hardTtlMs even without the fan-out. */
export function createRouteTable(opts: RouteTableOptions): RefreshingCache<Route> {
  return new RefreshingCache<Route>({
    load: (hostname) => loadRoute(opts.store, hostname),
    softTtlMs: opts.softTtlMs ?? 1_000,
    hardTtlMs: opts.hardTtlMs ?? 4_000,
    max: opts.max ?? 100_000,
    onLoad: opts.onLoad,
  });
}
