// Checks the edge asks for (DECISIONS §13): a request that reached an edge for
// a `pending_dns` domain with a certificate is evidence that routing moved.
// Each edge asks at most once per domain per 10 s; the checker keeps N edges
// to one run per domain per 10 s by running an edge's request only when no
// other edge's request for that domain ran within the spacing. Runs of the
// schedule do not count: a customer who flips the CNAME right after a
// scheduled run (the one that stored the certificate, say) must not wait for
// the next. The spacing is this checker's: with several checker replicas
// sharing the queue, each runs at most one such check per domain per 10 s.
import type { LeasedDomain } from '@cds/data';

/** An edge's request is dropped while an edge's request for the same domain ran less than this ago. */
export const EDGE_CHECK_SPACING_MS = 10_000;

/** The domains an edge's request ran for within the spacing, oldest first; bounded by the requests of 10 s. */
export class EdgeCheckSpacing {
  private readonly ranAt = new Map<string, number>();

  constructor(private readonly spacingMs = EDGE_CHECK_SPACING_MS) {}

  /** True, noting the time, when an edge's request for `domainId` may run at `now`. */
  take(domainId: string, now: Date): boolean {
    const t = now.getTime();
    // Oldest first (each take re-inserts its key): forget what the spacing no longer covers.
    for (const [id, at] of this.ranAt) {
      if (t - at < this.spacingMs) break;
      this.ranAt.delete(id);
    }
    const last = this.ranAt.get(domainId);
    if (last !== undefined && t - last < this.spacingMs) return false;
    this.ranAt.delete(domainId);
    this.ranAt.set(domainId, t);
    return true;
  }

  get size(): number {
    return this.ranAt.size;
  }
}

/** A domain no longer `pending_dns` has nothing to learn from the edge: its request is given back unrun. */
export function edgeRequestUseless(leased: Pick<LeasedDomain, 'domain'>): boolean {
  return leased.domain.status !== 'pending_dns';
}
