// A typed client of the application API (/v1): domains, webhook
// subscriptions, their deliveries and attempts.
import { randomUUID } from 'node:crypto';
import { ApiError } from './api-error';
import type {
  Domain, DomainCreate, DomainPage, ListDeliveriesQuery, ListDomainsQuery, ReplayResult, WebhookAttempt, WebhookCreate,
  WebhookDelivery, WebhookSubscription, WebhookSubscriptionWithSecret,
} from './resources';
import { Transport, type ClientOptions } from './transport';

const id = (value: string) => encodeURIComponent(value);

export interface CreateDomainOptions {
  /** Sent as `Idempotency-Key` (max 255 characters); a random uuid per call when omitted. Reuse it to retry a create safely. */
  idempotencyKey?: string;
}

export interface GetDomainOptions {
  /** A deleted domain is 404 `domain_not_found` unless this is true. */
  includeDeleted?: boolean;
}

export class DomainsApi {
  constructor(private readonly transport: Transport) {}

  /**
   * `POST /v1/domains`: registers a hostname; the answer holds the DNS records to publish (a CNAME, or for an
   * apex domain where the deployment sets EDGE_ADDRESSES one A or AAAA record per edge address). `redirect_to`
   * names another live domain of the application that every request is redirected to (308) once both are ready.
   */
  create(body: DomainCreate, options: CreateDomainOptions = {}): Promise<Domain> {
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    return this.transport.request({ method: 'POST', path: '/v1/domains', body, headers: { 'idempotency-key': idempotencyKey } });
  }

  /** `GET /v1/domains/{id}` with its current checks. */
  get(domainId: string, options: GetDomainOptions = {}): Promise<Domain> {
    return this.transport.request({ method: 'GET', path: `/v1/domains/${id(domainId)}`, query: { include_deleted: options.includeDeleted } });
  }

  /** `GET /v1/domains`: one page, oldest first; filters `reference`, `status`, `include_deleted`; `limit` 1..200, `offset`. */
  list(query: ListDomainsQuery = {}): Promise<DomainPage> {
    return this.transport.request({ method: 'GET', path: '/v1/domains', query: { ...query } });
  }

  /** Every domain that matches, page after page. */
  async *all(query: Omit<ListDomainsQuery, 'offset'> = {}): AsyncGenerator<Domain> {
    for (let offset = 0; ; ) {
      const page = await this.list({ ...query, offset });
      yield* page.items;
      if (page.items.length < page.limit) return;
      offset += page.items.length;
    }
  }

  /** `POST /v1/domains/{id}/checks`: asks for all four checks to run again; answers the domain as it was. */
  recheck(domainId: string): Promise<Domain> {
    return this.transport.request({ method: 'POST', path: `/v1/domains/${id(domainId)}/checks` });
  }

  /** `DELETE /v1/domains/{id}`: the domain in `deleting`; repeating it is a no-op. */
  delete(domainId: string): Promise<Domain> {
    return this.transport.request({ method: 'DELETE', path: `/v1/domains/${id(domainId)}` });
  }
}

export class WebhooksApi {
  constructor(private readonly transport: Transport) {}

  /** `POST /v1/webhooks`: the answer's `secret` is shown only here; keep it to verify deliveries. */
  create(body: WebhookCreate): Promise<WebhookSubscriptionWithSecret> {
    return this.transport.request({ method: 'POST', path: '/v1/webhooks', body });
  }

  /** `GET /v1/webhooks`: every subscription, revoked ones included, oldest first. */
  list(): Promise<WebhookSubscription[]> {
    return this.transport.request({ method: 'GET', path: '/v1/webhooks' });
  }

  /** One subscription. The API has no single-subscription read, so this picks it from the list; 404 `webhook_not_found` when absent. */
  async get(webhookId: string): Promise<WebhookSubscription> {
    const found = (await this.list()).find((webhook) => webhook.id === webhookId);
    if (!found) throw new ApiError(404, 'webhook_not_found', `No webhook subscription ${webhookId}`);
    return found;
  }

  /** `POST /v1/webhooks/{id}/rotate`: a new secret; earlier ones keep signing for 24 hours. */
  rotate(webhookId: string): Promise<WebhookSubscriptionWithSecret> {
    return this.transport.request({ method: 'POST', path: `/v1/webhooks/${id(webhookId)}/rotate` });
  }

  /** `DELETE /v1/webhooks/{id}`: deliveries stop, pending ones are abandoned. */
  revoke(webhookId: string): Promise<WebhookSubscription> {
    return this.transport.request({ method: 'DELETE', path: `/v1/webhooks/${id(webhookId)}` });
  }
}

export class DeliveriesApi {
  constructor(private readonly transport: Transport) {}

  /** `GET /v1/webhooks/{id}/deliveries`: newest first; `state`, `limit` 1..200, `offset`. */
  list(webhookId: string, query: ListDeliveriesQuery = {}): Promise<WebhookDelivery[]> {
    return this.transport.request({ method: 'GET', path: `/v1/webhooks/${id(webhookId)}/deliveries`, query: { ...query } });
  }

  /** `POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay`: a new delivery of the same event (`replay_of` names the original). */
  replay(webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    return this.transport.request({ method: 'POST', path: `/v1/webhooks/${id(webhookId)}/deliveries/${id(deliveryId)}/replay` });
  }

  /** `POST /v1/webhooks/{id}/replay?since=`: every delivery created at or after `since` again (at most 1000). */
  replaySince(webhookId: string, since: Date | string): Promise<ReplayResult> {
    const value = since instanceof Date ? since.toISOString() : since;
    return this.transport.request({ method: 'POST', path: `/v1/webhooks/${id(webhookId)}/replay`, query: { since: value } });
  }
}

export class AttemptsApi {
  constructor(private readonly transport: Transport) {}

  /** `GET /v1/webhooks/{id}/deliveries/{delivery_id}/attempts`: when each attempt started, how long it took, its status and error; oldest first. */
  async list(webhookId: string, deliveryId: string): Promise<WebhookAttempt[]> {
    const answer = await this.transport.request<{ items: WebhookAttempt[] }>({
      method: 'GET', path: `/v1/webhooks/${id(webhookId)}/deliveries/${id(deliveryId)}/attempts`,
    });
    return answer.items;
  }
}

/** `new CustomDomainClient({ baseUrl, apiKey })`: every method throws ApiError on a non-2xx answer. */
export class CustomDomainClient {
  readonly domains: DomainsApi;
  readonly webhooks: WebhooksApi;
  readonly deliveries: DeliveriesApi;
  readonly attempts: AttemptsApi;

  constructor(options: ClientOptions) {
    const transport = new Transport(options, options.apiKey, 'apiKey');
    this.domains = new DomainsApi(transport);
    this.webhooks = new WebhooksApi(transport);
    this.deliveries = new DeliveriesApi(transport);
    this.attempts = new AttemptsApi(transport);
  }
}
