// The message catalog: every routing key the services exchange, with the joi
// schema of its payload and a version. Publishers and consumers of both bus
// implementations validate against it, so a malformed message is refused where
// it is produced and dead-lettered where it is received.
import Joi from 'joi';
import { MessageValidationError } from './errors';

export const ROUTING_KEYS = {
  /** api/scheduler -> checker: run the checks of one domain now. */
  domainCheckRequested: 'domain.check.requested',
  /** outbox -> webhook dispatcher: a domain event to deliver to subscriptions. */
  eventEmitted: 'event.emitted',
  /** fan-out of domain and certificate changes to edge caches. */
  domainChanged: 'domain.changed',
} as const;
export type RoutingKey = (typeof ROUTING_KEYS)[keyof typeof ROUTING_KEYS];

export const CHECK_REASONS = { created: 'created', recheck: 'recheck', scheduled: 'scheduled' } as const;
export type CheckReason = (typeof CHECK_REASONS)[keyof typeof CHECK_REASONS];

export const EVENT_TYPES = {
  ready: 'domain.ready',
  attentionRequired: 'domain.attention_required',
  recovered: 'domain.recovered',
  deleted: 'domain.deleted',
} as const;
export type EventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

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
  data: { domain: Record<string, unknown> };
}

export interface DomainChangedPayload {
  domain_id: string;
  hostname: string;
  application_id: string;
  change: DomainChange;
}

export interface MessagePayloads {
  'domain.check.requested': DomainCheckRequestedPayload;
  'event.emitted': EventEmittedPayload;
  'domain.changed': DomainChangedPayload;
}
export type MessagePayload<K extends RoutingKey> = MessagePayloads[K];

/** A validated message: switching on `routingKey` narrows `payload`. */
export type CatalogMessage = { [K in RoutingKey]: { routingKey: K; payload: MessagePayloads[K] } }[RoutingKey];

export interface CatalogEntry {
  version: number;
  schema: Joi.ObjectSchema;
  /**
   * true: publishing fails when no queue is bound for the key (the broker
   * returns it), so the outbox keeps the row until the consuming service has
   * declared its queue. false: fan-out to whoever listens now (edge caches).
   */
  mandatory: boolean;
  /**
   * The durable queue of the service that consumes the key. Every bus declares
   * it when it connects, so a message published before that service ever ran
   * waits for it instead of blocking the outbox.
   */
  consumerQueue?: string;
}

const uuid = Joi.string().pattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'uuid');

export const CATALOG: Readonly<Record<RoutingKey, CatalogEntry>> = {
  'domain.check.requested': {
    version: 1,
    mandatory: true,
    consumerQueue: 'checker',
    schema: Joi.object({
      domain_id: uuid.required(),
      application_id: uuid.required(),
      reason: Joi.string().valid(...Object.values(CHECK_REASONS)).required(),
    }),
  },
  'event.emitted': {
    version: 1,
    mandatory: true,
    consumerQueue: 'webhook-dispatcher',
    schema: Joi.object({
      event_id: uuid.required(),
      type: Joi.string().valid(...Object.values(EVENT_TYPES)).required(),
      application_id: uuid.required(),
      created_at: Joi.string().isoDate().required(),
      data: Joi.object({ domain: Joi.object().unknown(true).required() }).required(),
    }),
  },
  'domain.changed': {
    version: 1,
    mandatory: false,
    schema: Joi.object({
      domain_id: uuid.required(),
      hostname: Joi.string().min(1).max(253).required(),
      application_id: uuid.required(),
      change: Joi.string().valid(...Object.values(DOMAIN_CHANGES)).required(),
    }),
  },
};

/** The consuming services' queues and the keys bound to each, from the catalog. */
export function serviceQueues(): Array<{ queue: string; routingKeys: RoutingKey[] }> {
  const byQueue = new Map<string, RoutingKey[]>();
  for (const [key, entry] of Object.entries(CATALOG) as Array<[RoutingKey, CatalogEntry]>) {
    if (entry.consumerQueue) byQueue.set(entry.consumerQueue, [...(byQueue.get(entry.consumerQueue) ?? []), key]);
  }
  return [...byQueue].map(([queue, routingKeys]) => ({ queue, routingKeys }));
}

export function isRoutingKey(value: string): value is RoutingKey {
  return Object.prototype.hasOwnProperty.call(CATALOG, value);
}

export function catalogEntry(routingKey: string): CatalogEntry {
  if (!isRoutingKey(routingKey)) throw new MessageValidationError(routingKey, [`unknown routing key "${routingKey}"`]);
  return CATALOG[routingKey];
}

/** Throws MessageValidationError unless `payload` matches the catalog schema of `routingKey`. */
export function validateMessage(routingKey: string, payload: unknown): CatalogMessage {
  const { schema } = catalogEntry(routingKey);
  // convert: false: the payload must already be in its wire form (what JSON gives back).
  const { error } = schema.validate(payload, { convert: false, abortEarly: false });
  if (error) throw new MessageValidationError(routingKey, error.details.map((d) => d.message));
  return { routingKey, payload } as CatalogMessage;
}
