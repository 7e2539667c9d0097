// The messages the services exchange over the bus (DECISIONS §7): routing
// keys, the queues that consume them, and each payload's type. These are the
// only place the names are written; libs/messaging's catalog holds the joi
// schema of each payload and is checked against these types.
import type { DomainResource } from './domain-resource';
import type { EventType } from './domain-status';

export const ROUTING_KEYS = {
  /** api/scheduler -> checker: run the checks of one domain now. */
  domainCheckRequested: 'domain.check.requested',
  /** outbox -> webhook dispatcher: a domain event to deliver to subscriptions. */
  eventEmitted: 'event.emitted',
  /** fan-out of domain and certificate changes to edge caches. */
  domainChanged: 'domain.changed',
} as const;
export type RoutingKey = (typeof ROUTING_KEYS)[keyof typeof ROUTING_KEYS];

/**
 * The queue of each consuming service: durable and shared by its replicas for
 * the checker and the dispatcher; for the edges, the prefix of the exclusive
 * queue each edge declares, since every edge needs every change.
 */
export const QUEUES = {
  checker: 'checker',
  webhookDispatcher: 'webhook-dispatcher',
  edgeCache: 'edge-cache',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** `edge`: a request reached the edge for a `pending_dns` domain with a certificate, evidence that routing moved (DECISIONS §13). */
export const CHECK_REASONS = { created: 'created', recheck: 'recheck', scheduled: 'scheduled', edge: 'edge' } as const;
export type CheckReason = (typeof CHECK_REASONS)[keyof typeof CHECK_REASONS];

/** DECISIONS §13: each edge asks for a domain's check at most once per this long, and a checker runs at most one such check per domain per this long. */
export const EDGE_CHECK_SPACING_MS = 10_000;

export const DOMAIN_CHANGES = { created: 'created', status: 'status', deleted: 'deleted', certificate: 'certificate' } as const;
export type DomainChange = (typeof DOMAIN_CHANGES)[keyof typeof DOMAIN_CHANGES];

export interface DomainCheckRequestedPayload {
  domain_id: string;
  application_id: string;
  reason: CheckReason;
}

export interface EventEmittedPayload {
  event_id: string;
  type: EventType;
  application_id: string;
  /** ISO 8601 with offset, written `+00:00` (the webhook body's `created_at`). */
  created_at: string;
  /** The domain resource as GET /v1/domains/{id} shows it; the catalog checks it against domainResourceSchema. */
  data: { domain: DomainResource };
}

export interface DomainChangedPayload {
  domain_id: string;
  hostname: string;
  application_id: string;
  change: DomainChange;
}

export interface MessagePayloads {
  [ROUTING_KEYS.domainCheckRequested]: DomainCheckRequestedPayload;
  [ROUTING_KEYS.eventEmitted]: EventEmittedPayload;
  [ROUTING_KEYS.domainChanged]: DomainChangedPayload;
}
export type MessagePayload<K extends RoutingKey> = MessagePayloads[K];

/** A message of one routing key with its payload: switching on `routingKey` narrows `payload`. */
export type Message<K extends RoutingKey = RoutingKey> = { [P in K]: { routingKey: P; payload: MessagePayloads[P] } }[K];
