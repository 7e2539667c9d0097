// Names for the shapes of the API, taken from the generated
// OpenAPI types (src/openapi.ts) so they follow the service's schemas.
import type { operations } from './openapi';

type Operation = keyof operations;
type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type Answer<O extends Operation, Status extends keyof operations[O]['responses']> = JsonOf<operations[O]['responses'][Status]>;
type RequestBody<O extends Operation> = JsonOf<NonNullable<operations[O]['requestBody']>>;
type Query<O extends Operation> = NonNullable<operations[O]['parameters']['query']>;

export type Domain = Answer<'getDomain', 200>;
export type DomainPage = Answer<'listDomains', 200>;
export type DomainCreate = RequestBody<'createDomain'>;
export type ListDomainsQuery = Query<'listDomains'>;
export type DomainStatus = Domain['status'];

/** A domain as the operator's lookup shows it: the Domain plus its application, certificate and last check runs. */
export type DomainLookup = Answer<'lookupDomain', 200>;
export type DomainCertificate = NonNullable<DomainLookup['certificate']>;
export type CheckRun = DomainLookup['recent_runs'][number];

export type WebhookSubscription = Answer<'revokeWebhook', 200>;
/** A subscription with its `secret`: only in the create and rotate answers. */
export type WebhookSubscriptionWithSecret = Answer<'createWebhook', 201>;
export type WebhookCreate = RequestBody<'createWebhook'>;
export type EventType = WebhookCreate['events'][number];

export type WebhookDelivery = Answer<'replayDelivery', 202>;
export type ListDeliveriesQuery = Query<'listDeliveries'>;
export type ReplayResult = Answer<'replayDeliveriesSince', 202>;
export type WebhookAttempt = Answer<'listDeliveryAttempts', 200>['items'][number];

/** The body of a webhook delivery (interface specification, Events). */
export interface WebhookEvent {
  /** Unique per event: deduplicate on it (a replay carries the same id). */
  id: string;
  type: EventType;
  /** ISO 8601 with `+00:00`: compare before changing state, deliveries may come out of order. */
  created_at: string;
  data: { domain: Domain };
}
