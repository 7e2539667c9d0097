// The API and the webhook dispatcher in one process over a fresh database of
// the kind TEST_DATABASE names, joined by an in-process bus and the outbox
// relay, delivering to a real HTTPS receiver on loopback.
import { randomUUID } from 'node:crypto';
import { ROUTING_KEYS, type DomainResource, type EventType } from '@cds/core';
import { outboxSource, pendingDelivery, type WebhookDeliveryRow } from '@cds/data';
import { silentLogger } from '@cds/logging';
import { InProcessBus, startOutboxRelay, type OutboxRelay } from '@cds/messaging';
import { startDispatcher, type Dispatcher, type DispatcherDeps } from '@cds/webhook-dispatcher';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { sampleDomainResource } from '../../support/domain-resource';
import { eventually } from '../../support/eventually';
import { createTestCa, startReceiver, type TestCa, type WebhookReceiver } from '../../support/webhook-receiver';
import type { DeliveryResource } from '../../../services/api/src/webhooks/webhook.mapper';

/** A subscription as POST /v1/webhooks answers it (the secret shown once). */
export interface Subscription {
  id: string;
  secret: string;
}

/** A delivery as GET /v1/webhooks/{id}/deliveries lists it. */
export type ListedDelivery = DeliveryResource;

export interface WebhookStack {
  api: TestApi;
  ca: TestCa;
  receiver: WebhookReceiver;
  bus: InProcessBus;
  /** Starts a dispatcher, another replica over the same database and bus (one is running after start). */
  startDispatcher(options?: DispatcherOptions): Promise<Dispatcher>;
  /** An application with one credential; its internal id too. */
  application(limits?: Record<string, number>): Promise<{ slug: string; key: string; id: string }>;
  /**
   * Subscribes the application of `key` to `events` (default domain.ready) at `path`
   * of `receiver` (default the stack's); fails unless the API answers 201.
   */
  subscribe(key: string, path: string, options?: { events?: EventType[]; receiver?: { url(path: string): string } }): Promise<Subscription>;
  /** The subscription's deliveries (up to 200, newest first); fails unless the API answers 200. */
  deliveries(key: string, subscriptionId: string): Promise<ListedDelivery[]>;
  /** Writes an `event.emitted` outbox row, as the checker or the API would. */
  emit(applicationId: string, type: EventType, domain?: DomainResource): Promise<string>;
  /** Resolves once every outbox row is published and the bus has nothing waiting or running: each event has its deliveries. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export const UNLIMITED = { api_requests_per_minute: 100_000 };

/** What a test may set of a dispatcher beyond the configuration. */
export type DispatcherOptions = Pick<DispatcherDeps, 'concurrency' | 'now'>;

/** `dispatcher`: options of the dispatcher started with the stack. */
export async function startWebhookStack(env: Record<string, string> = {}, caNames?: string[], dispatcher: DispatcherOptions = {}): Promise<WebhookStack> {
  const ca = createTestCa(caNames);
  const receiver = await startReceiver(ca);
  const api = await startTestApi({
    WEBHOOK_CA_BUNDLE: ca.caFile,
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE: '100ms',
    WEBHOOK_TIMEOUT: '3s',
    ...env,
  });
  const bus = new InProcessBus();
  const relay: OutboxRelay = startOutboxRelay({ source: outboxSource(api.store), bus, intervalMs: 50 });
  const dispatchers: Dispatcher[] = [];
  const stack: WebhookStack = {
    api, ca, receiver, bus,
    async startDispatcher(options = {}) {
      const started = await startDispatcher({ config: api.config, logger: silentLogger, store: api.store, bus, pollIntervalMs: 100, ...options });
      dispatchers.push(started);
      return started;
    },
    async application(limits = UNLIMITED) {
      const { slug, key } = await api.createApplication(undefined, limits);
      const row = await api.store.run((r) => r.applications.findLiveBySlug(slug));
      if (!row) throw new Error(`application ${slug} not found`);
      return { slug, key, id: row.id };
    },
    async subscribe(key, path, { events = ['domain.ready'], receiver: to = receiver } = {}) {
      const res = await api.request('POST', '/v1/webhooks', { token: key, body: { url: to.url(path), events } });
      if (res.status !== 201) throw new Error(`subscribe: ${res.status} ${res.text}`);
      return res.body;
    },
    async deliveries(key, subscriptionId) {
      const res = await api.request('GET', `/v1/webhooks/${subscriptionId}/deliveries?limit=200`, { token: key });
      if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${res.text}`);
      return res.body;
    },
    async emit(applicationId, type, domain = sampleDomainResource()) {
      const eventId = randomUUID();
      const createdAt = new Date().toISOString().replace(/Z$/, '+00:00');
      await api.store.run((r) => r.outbox.add(ROUTING_KEYS.eventEmitted, { event_id: eventId, type, application_id: applicationId, created_at: createdAt, data: { domain } }));
      relay.kick();
      return eventId;
    },
    async settled() {
      await eventually('every outbox row published', async () => (await api.store.run((r) => r.outbox.unpublished(1))).length === 0);
      await bus.whenIdle();
    },
    async close() {
      for (const d of dispatchers) await d.stop();
      await relay.stop();
      await bus.close();
      await receiver.close();
      await api.close();
      ca.remove();
    },
  };
  await stack.startDispatcher(dispatcher);
  return stack;
}

/** `count` due deliveries of one subscription written straight into the database, as a backlog left by an outage would be. */
export function dueBacklog(applicationId: string, subscriptionId: string, count: number): WebhookDeliveryRow[] {
  const now = new Date();
  return Array.from({ length: count }, () => {
    const eventId = randomUUID();
    const payload = JSON.stringify({ id: eventId, type: 'domain.ready', created_at: now.toISOString().replace('Z', '+00:00'), data: { domain: { id: randomUUID() } } });
    return pendingDelivery({ applicationId, subscriptionId, eventId, eventType: 'domain.ready', payload, replayOf: null }, now);
  });
}
