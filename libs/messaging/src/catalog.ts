// The message catalog: the joi schema and the version of every routing key
// that libs/core's messages.ts defines. Publishers and consumers of both bus
// implementations validate against it, so a malformed message is refused where
// it is produced and dead-lettered where it is received. Each schema is typed
// to its key's payload (strict: every field, of the right kind), so a schema
// that drifts from the payload type, or sits under the wrong key, fails the build.
import Joi from 'joi';
import {
  CHECK_REASONS,
  DOMAIN_CHANGES,
  domainResourceSchema,
  EVENT_TYPES,
  QUEUES,
  ROUTING_KEYS,
  type DomainChangedPayload,
  type DomainCheckRequestedPayload,
  type EventEmittedPayload,
  type Message,
  type MessagePayloads,
  type QueueName,
  type RoutingKey,
} from '@cds/core';
import { MessageValidationError } from './errors';

export interface CatalogEntry<P = unknown> {
  /** Written as the `x-schema-version` header; a consumer refuses a message of another version. */
  version: number;
  schema: Joi.ObjectSchema<P>;
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
  consumerQueue?: QueueName;
}

const uuid = Joi.string().pattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'uuid');

export const CATALOG = {
  [ROUTING_KEYS.domainCheckRequested]: {
    version: 1,
    mandatory: true,
    consumerQueue: QUEUES.checker,
    schema: Joi.object<DomainCheckRequestedPayload, true>({
      domain_id: uuid.required(),
      application_id: uuid.required(),
      reason: Joi.string().valid(...Object.values(CHECK_REASONS)).required(),
    }),
  },
  [ROUTING_KEYS.eventEmitted]: {
    version: 1,
    mandatory: true,
    consumerQueue: QUEUES.webhookDispatcher,
    schema: Joi.object<EventEmittedPayload, true>({
      event_id: uuid.required(),
      type: Joi.string().valid(...EVENT_TYPES).required(),
      application_id: uuid.required(),
      created_at: Joi.string().isoDate().required(),
      data: Joi.object<EventEmittedPayload['data'], true>({ domain: domainResourceSchema.required() }).required(),
    }),
  },
  [ROUTING_KEYS.domainChanged]: {
    version: 1,
    mandatory: false,
    schema: Joi.object<DomainChangedPayload, true>({
      domain_id: uuid.required(),
      hostname: Joi.string().min(1).max(253).required(),
      application_id: uuid.required(),
      change: Joi.string().valid(...Object.values(DOMAIN_CHANGES)).required(),
    }),
  },
} satisfies { readonly [K in RoutingKey]: CatalogEntry<MessagePayloads[K]> };

/** The consuming services' queues and the keys bound to each, from the catalog. */
export function serviceQueues(): Array<{ queue: QueueName; routingKeys: RoutingKey[] }> {
  const byQueue = new Map<QueueName, RoutingKey[]>();
  for (const key of Object.values(ROUTING_KEYS)) {
    const { consumerQueue } = catalogEntry(key);
    if (consumerQueue) byQueue.set(consumerQueue, [...(byQueue.get(consumerQueue) ?? []), key]);
  }
  return [...byQueue].map(([queue, routingKeys]) => ({ queue, routingKeys }));
}

export function isRoutingKey(value: string): value is RoutingKey {
  return Object.prototype.hasOwnProperty.call(CATALOG, value);
}

/** The catalog entry of `routingKey`; MessageValidationError for a key the catalog does not know. */
export function catalogEntry(routingKey: string): CatalogEntry {
  if (!isRoutingKey(routingKey)) throw new MessageValidationError(routingKey, [`unknown routing key "${routingKey}"`]);
  return CATALOG[routingKey];
}

/**
 * Throws MessageValidationError unless `payload` matches the catalog schema of
 * `routingKey`. A consumer passes the `version` the message says it has, which
 * must be the catalog's: a message of another version is refused like a
 * malformed one. A publisher passes none: it writes the catalog's version.
 */
export function validateMessage(routingKey: string, payload: unknown, version?: number): Message {
  const entry = catalogEntry(routingKey);
  if (version !== undefined && version !== entry.version) throw new MessageValidationError(routingKey, [`schema version ${version}, the catalog has version ${entry.version}`]);
  const { schema } = entry;
  // convert: false: the payload must already be in its wire form (what JSON gives back).
  const { error } = schema.validate(payload, { convert: false, abortEarly: false });
  if (error) throw new MessageValidationError(routingKey, error.details.map((d) => d.message));
  return { routingKey, payload } as Message;
}
