// The worker's share of slots per subscription and per application (DECISIONS §10), over the fake
// store (which leases whatever is due: the shares of the real lease are
// tested on the databases) and an HTTP client that answers after a delay.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Readable } from 'node:stream';
import type { AxiosInstance } from 'axios';
import { coolingAfter, encryptSecret, NOT_COOLING, type CoolingState } from '@cds/core';
import { pendingDelivery, type DataStore, type Repositories, type WebhookDeliveryRow, type WebhookSecretRow, type WebhookSubscriptionRow } from '@cds/data';
import { silentLogger } from '@cds/logging';
import { eventually } from '../../../test/support/eventually';
import { fakeStore, type FakeStore } from '../../../test/support/fake-store';
import { DeliveryWorker } from './delivery-worker';
import type { DeferralReason } from './fair-queue';

const T0 = new Date('2025-06-01T10:00:00.000Z');
const KEY = randomBytes(32);

interface Call {
  path: string;
  started: number;
  ended: number | null;
}

/** A client that answers `statusOf(path)` after `delayMs`, keeping when each request ran. */
function slowClient(delayMs: number, statusOf: (path: string) => number): { client: AxiosInstance; calls: Call[] } {
  const calls: Call[] = [];
  const client = {
    post: async (url: string) => {
      const call: Call = { path: new URL(url).pathname, started: Date.now(), ended: null };
      calls.push(call);
      await sleep(delayMs);
      call.ended = Date.now();
      return { status: statusOf(call.path), data: Readable.from([Buffer.from('ok')]) };
    },
  } as unknown as AxiosInstance;
  return { client, calls };
}

/** The most calls to `path` (or any of `path`s) running at one moment. */
function mostAtOnce(calls: Call[], path: string | string[]): number {
  const paths = Array.isArray(path) ? path : [path];
  const mine = calls.filter((c) => paths.includes(c.path));
  return Math.max(0, ...mine.map((c) => mine.filter((o) => o.started <= c.started && (o.ended === null || o.ended > c.started)).length));
}

function subscriptionWithDeliveries(path: string, count: number, applicationId = randomUUID()): { subscription: WebhookSubscriptionRow; secret: WebhookSecretRow; deliveries: WebhookDeliveryRow[] } {
  const subscription: WebhookSubscriptionRow = {
    id: randomUUID(), applicationId, url: `https://93.184.216.34${path}`, events: ['domain.ready'], status: 'active', createdAt: T0, updatedAt: T0, revokedAt: null,
  };
  const secretId = randomUUID();
  const secret = { id: secretId, subscriptionId: subscription.id, secretSealed: encryptSecret('whsec_test', KEY, { purpose: 'webhook-secret', id: secretId }), createdAt: T0, expiresAt: null };
  const deliveries = Array.from({ length: count }, () =>
    pendingDelivery({ applicationId: subscription.applicationId, subscriptionId: subscription.id, eventId: randomUUID(), eventType: 'domain.ready', payload: '{}', replayOf: null }, T0));
  return { subscription, secret, deliveries };
}

function seeded(...subs: Array<ReturnType<typeof subscriptionWithDeliveries>>): FakeStore {
  return fakeStore({ subscriptions: subs.map((s) => s.subscription), secrets: subs.map((s) => s.secret), deliveries: subs.flatMap((s) => s.deliveries) });
}

/**
 * The fake store, keeping cooling states as the database does: each recorded
 * outcome moves its subscription's, and coolingStates reads them.
 */
function keepingCoolingStates(store: FakeStore): DataStore {
  const states = new Map<string, CoolingState>();
  const wrap = (r: Repositories): Repositories => ({
    ...r,
    webhookDeliveryQueue: Object.assign(Object.create(r.webhookDeliveryQueue) as Repositories['webhookDeliveryQueue'], {
      recordAttempts: async (results: Parameters<Repositories['webhookDeliveryQueue']['recordAttempts']>[0]) => {
        for (const result of results) {
          const subscriptionId = store.tables.deliveries.find((d) => d.id === result.attempt.deliveryId)?.subscriptionId as string;
          states.set(subscriptionId, coolingAfter(states.get(subscriptionId) ?? NOT_COOLING, result.deliveredAt !== null));
        }
        return r.webhookDeliveryQueue.recordAttempts(results);
      },
    }),
    webhookSubscriptions: Object.assign(Object.create(r.webhookSubscriptions) as Repositories['webhookSubscriptions'], {
      coolingStates: async (ids: string[]) => new Map(ids.map((id) => [id, states.get(id) ?? NOT_COOLING])),
    }),
  });
  return { ...store, run: (fn) => store.run((r) => fn(wrap(r))), transaction: (fn) => store.transaction((r) => fn(wrap(r))) };
}

async function runWorker(store: DataStore, client: AxiosInstance, done: () => boolean, opts: { concurrency: number; maxInFlightPerSubscription: number; deferred?: Array<[number, DeferralReason]> }): Promise<void> {
  const worker = new DeliveryWorker({
    store, encryptionKey: KEY, retrySchedule: [10], concurrency: opts.concurrency, maxInFlightPerSubscription: opts.maxInFlightPerSubscription,
    onDeferred: (count, reason) => opts.deferred?.push([count, reason]), pollIntervalMs: 10, logger: silentLogger, now: () => new Date(),
    send: { client, policy: { dnsServers: [], allowPrivateCidrs: [] }, timeoutMs: 1_000, now: () => new Date() },
  });
  worker.start();
  try {
    await eventually('the worker to be done', done, { timeoutMs: 10_000, intervalMs: 10 });
  } finally {
    await worker.stop();
  }
}

describe('DeliveryWorker sharing its slots', () => {
  it('runs at most maxInFlightPerSubscription attempts of one subscription, and gives the other subscriptions the free slots at once', async () => {
    const busy = subscriptionWithDeliveries('/busy', 12);
    const quiet = subscriptionWithDeliveries('/quiet', 2);
    const store = seeded(busy, quiet);
    const { client, calls } = slowClient(40, () => 200);
    const deferred: Array<[number, DeferralReason]> = [];

    await runWorker(store, client, () => store.tables.deliveries.every((d) => d.state === 'delivered'), { concurrency: 8, maxInFlightPerSubscription: 2, deferred });

    expect(calls.filter((c) => c.path === '/busy')).toHaveLength(12);
    expect(mostAtOnce(calls, '/busy')).toBe(2);
    // Both of the quiet subscription's deliveries went in the first round, beside the busy one's first two.
    const firstQuiet = Math.max(...calls.filter((c) => c.path === '/quiet').map((c) => c.started));
    const busyStarts = calls.filter((c) => c.path === '/busy').map((c) => c.started).sort((a, b) => a - b);
    expect(firstQuiet).toBeLessThan(busyStarts[2] as number);
    expect(deferred.length).toBeGreaterThan(0);
    expect(deferred.every(([, reason]) => reason === 'in_flight_cap')).toBe(true);
  });

  it("runs at most half its slots for one application's subscriptions together, and gives another application's deliveries the rest at once", async () => {
    const many = randomUUID();
    const paths = ['/many-1', '/many-2', '/many-3'];
    const crowd = paths.map((path) => subscriptionWithDeliveries(path, 6, many));
    const other = subscriptionWithDeliveries('/other', 2);
    // The fake store leases in this order: all of them at once (the shares of the real lease are tested on the databases).
    const store = seeded(other, ...crowd);
    const { client, calls } = slowClient(40, () => 200);
    const deferred: Array<[number, DeferralReason]> = [];

    await runWorker(store, client, () => store.tables.deliveries.every((d) => d.state === 'delivered'), { concurrency: 8, maxInFlightPerSubscription: 4, deferred });

    expect(calls.filter((c) => paths.includes(c.path))).toHaveLength(18);
    // 3 subscriptions of 4 slots each could take 12 of the 8 slots: the application gets 4.
    expect(mostAtOnce(calls, paths)).toBe(4);
    // The other application's deliveries went in the first round, beside the first four: the free slots were theirs.
    const lastOther = Math.max(...calls.filter((c) => c.path === '/other').map((c) => c.started));
    const manyStarts = calls.filter((c) => paths.includes(c.path)).map((c) => c.started).sort((a, b) => a - b);
    expect(lastOther).toBeLessThan(manyStarts[4] as number);
    expect(deferred.some(([, reason]) => reason === 'application_cap')).toBe(true);
  });

  it('sends one attempt at a time once 5 attempts in a row failed, and all of them again after a success', async () => {
    const failing = subscriptionWithDeliveries('/failing', 8);
    const fake = seeded(failing);
    const store = keepingCoolingStates(fake);
    let answer = 500;
    const { client, calls } = slowClient(30, () => answer);
    const deferred: Array<[number, DeferralReason]> = [];
    const worker = new DeliveryWorker({
      store, encryptionKey: KEY, retrySchedule: [10], concurrency: 8, maxInFlightPerSubscription: 4, onDeferred: (count, reason) => deferred.push([count, reason]),
      pollIntervalMs: 10, logger: silentLogger, now: () => new Date(), send: { client, policy: { dnsServers: [], allowPrivateCidrs: [] }, timeoutMs: 1_000, now: () => new Date() },
    });
    worker.start();
    try {
      // The first 8 attempts: 4 at once, all fail; cooling begins with the fifth failure.
      await eventually('16 attempts', () => fake.tables.attempts.length >= 16, { timeoutMs: 10_000, intervalMs: 10 });
      const ordered = [...calls].sort((a, b) => a.started - b.started);
      expect(mostAtOnce(ordered.slice(0, 4), '/failing')).toBe(4);
      // The attempts started once the first 8 had ended ran alone.
      const cooledAt = Math.max(...ordered.slice(0, 8).map((c) => c.ended ?? Infinity));
      const alone = ordered.filter((c) => c.started >= cooledAt);
      expect(alone.length).toBeGreaterThanOrEqual(6);
      expect(mostAtOnce(alone, '/failing')).toBe(1);
      expect(deferred.some(([, reason]) => reason === 'cooling')).toBe(true);

      // A success ends cooling: the deliveries still pending go side by side again.
      answer = 200;
      const before = calls.length;
      await eventually('every delivery delivered', () => fake.tables.deliveries.every((d) => d.state === 'delivered'), { timeoutMs: 10_000, intervalMs: 10 });
      expect(mostAtOnce(calls.slice(before + 1), '/failing')).toBeGreaterThan(1);
    } finally {
      await worker.stop();
    }
  });
});
