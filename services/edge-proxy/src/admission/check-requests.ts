// Checks the edge asks for (DECISIONS §13, with ACME_DNS_ZONE): a request that
// reaches the edge for a `pending_dns` domain is evidence that its routing
// moved, so the edge publishes `domain.check.requested` (reason `edge`) at
// once, at most once per domain per 10 s from this edge (the checker keeps it
// to one run per 10 s across edges). The request never waits for it, nor fails
// with it: it is answered as before, with Retry-After: 5.
import { CHECK_REASONS, EDGE_CHECK_SPACING_MS, errorMessage, KeySpacing, ROUTING_KEYS, type DomainCheckRequestedPayload } from '@cds/core';
import type { Logger } from '@cds/logging';
import type { Bus } from '@cds/messaging';
import type { DomainRoute } from '../caches/route-table';

/** The Retry-After of a pending_dns answer while checks are asked for: the domain may be served a few seconds later. */
export const CHECK_REQUESTED_RETRY_AFTER_SECONDS = 5;

export interface CheckRequestsDeps {
  bus: Bus;
  logger: Logger;
  /** Default: one request per domain per EDGE_CHECK_SPACING_MS. */
  throttle?: KeySpacing;
  /** Each publish that resolved or failed (metrics). */
  onPublished?: (ok: boolean) => void;
}

/** Asks the checker to check pending_dns domains that requests reached; one per domain per spacing. */
export class CheckRequests {
  private readonly throttle: KeySpacing;
  /** A failing bus is told once (warn) until a publish goes through again; the failures between are debug. */
  private failing = false;

  constructor(private readonly deps: CheckRequestsDeps) {
    this.throttle = deps.throttle ?? new KeySpacing({ spacingMs: EDGE_CHECK_SPACING_MS });
  }

  /** Asks for a check of the route's domain unless this edge did within the spacing; returns at once. */
  request(route: DomainRoute): void {
    if (!this.throttle.take(route.domainId)) return;
    const payload: DomainCheckRequestedPayload = { domain_id: route.domainId, application_id: route.application.id, reason: CHECK_REASONS.edge };
    let published: Promise<void>;
    try {
      published = this.deps.bus.publish(ROUTING_KEYS.domainCheckRequested, payload);
    } catch (err) {
      published = Promise.reject(err);
    }
    published.then(
      () => {
        this.failing = false;
        this.deps.onPublished?.(true);
      },
      (err: unknown) => {
        this.deps.onPublished?.(false);
        const fields = { domain_id: route.domainId, error: errorMessage(err) };
        if (this.failing) this.deps.logger.debug('edge check request not published', fields);
        else this.deps.logger.warn('edge check request not published: pending_dns domains are checked on their schedule meanwhile', fields);
        this.failing = true;
      },
    );
  }
}
