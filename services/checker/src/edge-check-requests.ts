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

/** A domain no longer `pending_dns` has nothing to learn from the edge: its request is given back unrun. */
export function edgeRequestUseless(leased: Pick<LeasedDomain, 'domain'>): boolean {
  return leased.domain.status !== 'pending_dns';
}
