import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AxiosInstance } from 'axios';
import { encryptSecret, webhookSignatureHeader } from '@cds/core';
import { pendingDelivery, type WebhookDeliveryRow, type WebhookSubscriptionRow } from '@cds/data';
import { silentLogger, type Logger } from '@cds/logging';
import { eventually } from '../../../test/support/eventually';
import { fakeStore, type FakeStore } from '../../../test/support/fake-store';
import { DeliveryWorker } from './delivery-worker';

const T0 = new Date('2025-06-01T10:00:00.000Z');
const KEY = randomBytes(32);
const SECRET = 'whsec_test';
const SCHEDULE = [60_000, 300_000];

interface Sent {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** An HTTP client that answers every POST with `status` and records what it was sent: no network. */
function answering(status: number): { client: AxiosInstance; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = {
    post: async (url: string, body: Buffer, config: { headers: Record<string, string> }) => {
      sent.push({ url, body: body.toString('utf8'), headers: config.headers });
      return { status, data: Readable.from([Buffer.from('ok')]) };
    },
  } as unknown as AxiosInstance;
  return { client, sent };
}

function seeded(opts: { status?: WebhookSubscriptionRow['status']; secret?: boolean; attempts?: number } = {}): { store: FakeStore; delivery: WebhookDeliveryRow } {
  const subscription: WebhookSubscriptionRow = {
    id: randomUUID(), applicationId: randomUUID(), url: 'https://93.184.216.34/hook', events: ['domain.ready'],
    status: opts.status ?? 'active', createdAt: T0, updatedAt: T0, revokedAt: null,
  };
  const delivery = {
    ...pendingDelivery({ applicationId: subscription.applicationId, subscriptionId: subscription.id, eventId: randomUUID(), eventType: 'domain.ready', payload: '{"id":"e1"}', replayOf: null }, T0),
    attempts: opts.attempts ?? 0,
  };
  const secretId = randomUUID();
  const secrets = opts.secret === false ? [] : [{ id: secretId, subscriptionId: subscription.id, secretSealed: encryptSecret(SECRET, KEY, { purpose: 'webhook-secret', id: secretId }), createdAt: T0, expiresAt: null }];
  return { store: fakeStore({ subscriptions: [subscription], secrets, deliveries: [delivery] }), delivery };
}

/** Runs a worker until `done` holds for the store, then stops it. */
async function runWorker(store: FakeStore, client: AxiosInstance, done: (store: FakeStore) => boolean, logger: Logger = silentLogger): Promise<void> {
  const worker = new DeliveryWorker({
    store, encryptionKey: KEY, retrySchedule: SCHEDULE, concurrency: 2, pollIntervalMs: 20, logger, now: () => T0,
    send: { client, policy: { dnsServers: [], allowPrivateCidrs: [] }, timeoutMs: 1_000, now: () => T0 },
  });
  worker.start();
  try {
    await eventually('the worker to write the outcome', () => done(store), { timeoutMs: 5_000, intervalMs: 10 });
  } finally {
    await worker.stop();
  }
}

const attempted = (store: FakeStore) => store.tables.attempts.length > 0;

describe('DeliveryWorker', () => {
  it('sends a due delivery signed with the subscription\'s secret and records it delivered', async () => {
    const { store, delivery } = seeded();
    const { client, sent } = answering(204);

    await runWorker(store, client, attempted);

    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ url: 'https://93.184.216.34/hook', body: delivery.payload });
    expect(sent[0]?.headers).toMatchObject({
      'X-Custom-Domain-Signature': webhookSignatureHeader([SECRET], Math.floor(T0.getTime() / 1000), delivery.payload),
      'X-Custom-Domain-Event': 'domain.ready', 'X-Custom-Domain-Event-Id': delivery.eventId,
    });
    expect(store.tables.deliveries[0]).toMatchObject({ state: 'delivered', attempts: 1, lastStatusCode: 204, lastError: null, deliveredAt: T0, nextAttemptAt: null, leaseId: null });
    expect(store.tables.attempts).toEqual([expect.objectContaining({ deliveryId: delivery.id, attempt: 1, statusCode: 204, error: null, startedAt: T0 })]);
  });

  it('records a failed attempt and schedules the next one by the retry schedule', async () => {
    const { store } = seeded();
    const { client, sent } = answering(500);

    await runWorker(store, client, attempted);

    expect(sent).toHaveLength(1);
    expect(store.tables.deliveries[0]).toMatchObject({
      state: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'receiver answered HTTP 500', nextAttemptAt: new Date(T0.getTime() + SCHEDULE[0]!), deliveredAt: null,
    });
  });

  it('abandons a delivery whose eighth attempt fails', async () => {
    const { store } = seeded({ attempts: 7 });
    await runWorker(store, answering(302).client, attempted);
    expect(store.tables.deliveries[0]).toMatchObject({
      state: 'abandoned', attempts: 8, lastStatusCode: 302, lastError: 'receiver answered HTTP 302; redirects are not followed', nextAttemptAt: null,
    });
  });

  it('records a failure without sending when the subscription has no signing secret', async () => {
    const { store } = seeded({ secret: false });
    const { client, sent } = answering(200);
    await runWorker(store, client, attempted);
    expect(sent).toEqual([]);
    expect(store.tables.deliveries[0]).toMatchObject({ state: 'pending', attempts: 1, lastStatusCode: null, lastError: 'the subscription has no signing secret' });
  });

  it('sends nothing for a subscription revoked after the delivery was leased', async () => {
    const revoked = seeded({ status: 'revoked' });
    const active = seeded();
    // Both due in one store: the worker leases both in one claim and starts them in order.
    const store = fakeStore({ ...revoked.store.tables, deliveries: [...revoked.store.tables.deliveries, ...active.store.tables.deliveries] });
    store.tables.subscriptions.push(...active.store.tables.subscriptions);
    store.tables.secrets.push(...active.store.tables.secrets);
    const { client, sent } = answering(200);

    await runWorker(store, client, attempted);

    expect(sent.map((s) => s.body)).toEqual([active.delivery.payload]);
    expect(store.tables.attempts.map((a) => a.deliveryId)).toEqual([active.delivery.id]);
    expect(store.tables.deliveries.find((d) => d.id === revoked.delivery.id)).toMatchObject({ state: 'pending', attempts: 0 });
  });

  it('drops the outcome, with a warning, when the lease ran out meanwhile', async () => {
    const { store } = seeded();
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    // Another dispatcher took the delivery over while this one was sending.
    const { client } = answering(200);
    const stealing = {
      post: async (...args: Parameters<AxiosInstance['post']>) => {
        for (const d of store.tables.deliveries) d.leaseId = 'someone-else';
        return client.post(...args);
      },
    } as unknown as AxiosInstance;

    await runWorker(store, stealing, () => warnings.length > 0, logger);

    expect(warnings).toEqual(['webhook attempt outcome dropped: its lease ran out']);
    expect(store.tables.attempts).toEqual([]);
    expect(store.tables.deliveries[0]).toMatchObject({ state: 'pending', attempts: 0, leaseId: 'someone-else' });
  });
});
