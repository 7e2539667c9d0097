// Fault: the dispatcher process (split mode: `node services/webhook-dispatcher/dist/main.js`
// over the test database and RabbitMQ) is killed with SIGKILL while 1,000 events
// are being delivered, then started again. Every event must reach the receiver
// at least once, none may be abandoned; the duplicates the crash caused are reported.
import { randomUUID } from 'node:crypto';
import { ROUTING_KEYS } from '@cds/core';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { sampleDomainResource } from '../../support/domain-resource';
import { eventually } from '../../support/eventually';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { createTestCa, startReceiver, type TestCa, type WebhookReceiver } from '../../support/webhook-receiver';
import { dispatcherEnv, kill9, startBrokerRelay, startDispatcherProcess, stop, waitForDispatcherBuild, type BrokerRelay, type DispatcherProcess } from './dispatcher-process';

const EVENTS = 1000;
const KILL_AFTER = 300;

let db: TestDatabase;
let api: TestApi;
let ca: TestCa;
let receiver: WebhookReceiver;
let broker: BrokerRelay;
const processes: DispatcherProcess[] = [];

beforeAll(async () => {
  await waitForDispatcherBuild();
  db = await createTestDatabase();
  ca = createTestCa();
  receiver = await startReceiver(ca);
  api = await startTestApi({ WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' }, { url: db.url });
  broker = await startBrokerRelay(api.store);
});

afterAll(async () => {
  for (const proc of processes) await stop(proc);
  await broker?.close();
  await receiver?.close();
  await api?.close();
  await db?.drop();
  ca?.remove();
});

it(`delivers every one of ${EVENTS} events at least once across a kill -9 of the dispatcher`, async () => {
  const { slug, key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  const appId = (await api.store.run((r) => r.applications.findLiveBySlug(slug)))?.id as string;
  // The receiver takes a little time per request, so the crash lands mid-flow.
  receiver.script('/fault', [{ status: 200, delayMs: 15 }]);
  const sub = await api.request('POST', '/v1/webhooks', { token: key, body: { url: receiver.url('/fault'), events: ['domain.ready'] } });
  expect(sub.status).toBe(201);

  const env = dispatcherEnv(db.url, broker.vhost.url, api.config.dataEncryptionKey, {
    WEBHOOK_CA_BUNDLE: ca.caFile,
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
    WEBHOOK_TIMEOUT: '2s',
    WEBHOOK_RETRY_SCHEDULE: '200ms',
  });
  const first = await startDispatcherProcess(env);
  processes.push(first);

  const eventIds = Array.from({ length: EVENTS }, () => randomUUID());
  const createdAt = new Date().toISOString().replace('Z', '+00:00');
  for (let start = 0; start < EVENTS; start += 100) {
    await api.store.transaction(async (r) => {
      for (const eventId of eventIds.slice(start, start + 100)) {
        await r.outbox.add(ROUTING_KEYS.eventEmitted, { event_id: eventId, type: 'domain.ready', application_id: appId, created_at: createdAt, data: { domain: sampleDomainResource() } });
      }
    });
    broker.relay.kick();
  }

  const unique = () => new Set(receiver.to('/fault').map((r) => String(r.headers['x-custom-domain-event-id']))).size;
  await eventually(`${KILL_AFTER} events received`, () => unique() >= KILL_AFTER, { timeoutMs: 120_000 });
  await kill9(first);
  const atKill = unique();
  expect(first.child.signalCode).toBe('SIGKILL');
  expect(atKill).toBeLessThan(EVENTS);

  const second = await startDispatcherProcess(env);
  processes.push(second);
  await eventually('every event received', () => unique() === EVENTS, { timeoutMs: 180_000 });
  await eventually('every delivery recorded as delivered', async () => {
    const rows = await api.store.run((r) => r.webhookDeliveries.list(appId, sub.body.id, { limit: EVENTS + 1, offset: 0 }));
    return rows.length === EVENTS && rows.every((d) => d.state === 'delivered');
  }, { timeoutMs: 60_000 });

  const rows = await api.store.run((r) => r.webhookDeliveries.list(appId, sub.body.id, { limit: EVENTS + 1, offset: 0 }));
  expect(rows).toHaveLength(EVENTS);
  expect(rows.filter((d) => d.state === 'abandoned')).toEqual([]);
  expect(new Set(rows.map((d) => d.eventId))).toEqual(new Set(eventIds));
  const requests = receiver.to('/fault').length;
  const duplicates = requests - EVENTS;
  console.log(
    `webhook fault test (${db.kind}): ${EVENTS} events, dispatcher killed (SIGKILL) after ${atKill} distinct events had arrived; ` +
      `after the restart all ${EVENTS} arrived; ${requests} requests in all, ${duplicates} duplicate(s); 0 abandoned`,
  );
  expect(duplicates).toBeGreaterThanOrEqual(0);
  expect(second.child.exitCode).toBeNull();
});
