// The `domain.changed` fan-out: every edge drops what it cached of a changed
// domain (route, certificate, assertion), so the change is served at once
// instead of at the change feed's next read (about a second later).
import { randomBytes } from 'node:crypto';
import { DOMAIN_CHANGES, QUEUES, ROUTING_KEYS } from '@cds/core';
import type { Bus, Subscription } from '@cds/messaging';
import { meteredDeadLetters, meteredHandler } from '@cds/metrics';
import type { AssertionSigner } from '../admission/assertion-signer';
import type { CertificateEntry } from '../caches/certificate-store';
import type { LiveNames } from '../caches/live-names';
import type { RefreshingCache } from '../caches/refreshing-cache';
import type { Route } from '../caches/route-table';

/** Counted under this consumer name, like the checker's and the dispatcher's consumers. */
const CONSUMER = QUEUES.edgeCache;

export interface CachedDomains {
  routes: RefreshingCache<Route>;
  certificates: RefreshingCache<CertificateEntry>;
  signer: AssertionSigner;
  names?: LiveNames;
}

export function subscribeCacheInvalidation(bus: Bus, cached: CachedDomains): Promise<Subscription> {
  return bus.subscribe({
    // One exclusive queue per pod: every edge needs every change.
    queue: `${CONSUMER}.${randomBytes(6).toString('hex')}`,
    exclusive: true,
    routingKeys: [ROUTING_KEYS.domainChanged],
    onDeadLetter: meteredDeadLetters(CONSUMER),
    handler: meteredHandler(
      CONSUMER,
      async (message) => {
        if (message.routingKey !== ROUTING_KEYS.domainChanged) return;
        // A name created before the feed has read it must not be answered unknown from LiveNames.
        cached.names?.set(message.payload.hostname, message.payload.change !== DOMAIN_CHANGES.deleted);
        cached.routes.invalidate(message.payload.hostname);
        cached.certificates.invalidate(message.payload.hostname);
        cached.signer.forget(message.payload.domain_id);
      },
      // The outbox row's time travels with the message; a redelivery's lag was counted the first time.
      { writtenAt: (message) => (message.redelivered ? null : message.writtenAt) },
    ),
  });
}
