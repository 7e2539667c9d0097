// A RabbitMQ outage does not take the API out of its Service: while the
// broker cannot be reached the API process stays ready (/readyz 200), /v1
// keeps answering (a domain is created: 201; another deleted: 202), and the
// messages of those writes wait in the outbox; once the broker is back they
// arrive (the check request, the edge's change, the webhook event). The outage
// is a loopback forwarder between the API and RabbitMQ, stopped and started
// again: the machine's broker, which other suites use, is never touched.
import { ROUTING_KEYS } from '@cds/core';
import { createDataStore, type DataStore } from '@cds/data';
import { connectAmqpBus, type AmqpBus } from '@cds/messaging';
import { connectTestClient, type TestClient } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { createTcpForwarder, type TcpForwarder } from '../../support/tcp-forwarder';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { createVhost, deleteVhost, uniqueName, type TestVhost } from '../messaging/rabbit';
import { assertRunning, deploymentSecrets, spawnSplitProcess, waitForServiceBuilds, type SplitProcess } from './split-process';

let db: TestDatabase;
let store: DataStore;
let vhost: TestVhost;
let broker: TcpForwarder;
let observer: AmqpBus;
let api: SplitProcess;
let client: TestClient;
/** What reached the broker: `<routing key> <domain id>` (events: `<event type> <domain id>`). */
const received: string[] = [];

beforeAll(async () => {
  await waitForServiceBuilds();
  db = await createTestDatabase();
  store = await createDataStore({ url: db.url });
  await store.migrate();
  vhost = await createVhost();
  broker = await createTcpForwarder(5672);
  // The observer talks to RabbitMQ directly: it sees what the API's relay published.
  observer = await connectAmqpBus({ url: vhost.url, reconnectDelayMs: { initial: 100, max: 500 } });
  await observer.subscribe({
    queue: uniqueName('observer'),
    routingKeys: [ROUTING_KEYS.domainCheckRequested, ROUTING_KEYS.domainChanged, ROUTING_KEYS.eventEmitted],
    handler: async (m) => {
      if (m.routingKey === ROUTING_KEYS.eventEmitted) received.push(`${m.payload.type} ${m.payload.data.domain.id}`);
      else received.push(`${m.routingKey} ${m.payload.domain_id}`);
    },
  });
  const secrets = deploymentSecrets();
  api = await spawnSplitProcess('api', {
    ...secrets, DATABASE_URL: db.url, AMQP_URL: `amqp://guest:guest@127.0.0.1:${broker.port}/${encodeURIComponent(vhost.name)}`,
  });
  await eventually('the api to be ready', async () => {
    assertRunning(api);
    return (await api.ops('/readyz')) === 200;
  }, { timeoutMs: 60_000, intervalMs: 200, explain: () => api.output() });
  client = await connectTestClient(api.url, secrets.OPERATOR_TOKEN as string);
});

afterAll(async () => {
  await api?.stop();
  await observer?.close();
  await broker?.stop();
  await store?.close();
  if (vhost) await deleteVhost(vhost);
  await db?.drop();
});

it('stays ready and keeps /v1 answering while the broker is away; the messages arrive once it is back', async () => {
  const { key } = await client.createApplication(undefined, { live_domains: 10 });
  const create = async (hostname: string): Promise<string> => {
    const res = await client.request('POST', '/v1/domains', { token: key, body: { hostname, reference: 'ws_1' } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const before = await create('shop-before.broker-outage.example.com');
  await eventually('the first check request through the broker', () => received.includes(`${ROUTING_KEYS.domainCheckRequested} ${before}`), { timeoutMs: 30_000 });
  await eventually('the outbox empty before the outage', async () => (await store.run((r) => r.outbox.unpublished(1000))).length === 0, { timeoutMs: 30_000 });

  // The broker goes away: the API's connection is cut and new ones are refused.
  await broker.stop();
  await eventually('the api to notice the lost broker', () => api.output().includes('lost the connection to the message broker'), { timeoutMs: 15_000, explain: () => api.output() });

  const during = await create('shop-during.broker-outage.example.com');
  const deleted = await client.request('DELETE', `/v1/domains/${before}`, { token: key });
  expect(deleted.status).toBe(202);
  // Ready the whole time, probe after probe, while the relay keeps failing to publish.
  for (let probe = 0; probe < 5; probe++) {
    expect(await api.ops('/readyz')).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  assertRunning(api);
  const waiting = (await store.run((r) => r.outbox.unpublished(1000))).map((row) => row.routingKey).sort();
  expect(waiting).toEqual([ROUTING_KEYS.domainChanged, ROUTING_KEYS.domainChanged, ROUTING_KEYS.domainCheckRequested, ROUTING_KEYS.eventEmitted]);
  expect(received).not.toContain(`${ROUTING_KEYS.domainCheckRequested} ${during}`);

  // The broker is back: every message of the outage arrives, and the outbox is empty.
  await broker.start();
  const expected = [`${ROUTING_KEYS.domainCheckRequested} ${during}`, `${ROUTING_KEYS.domainChanged} ${during}`, `${ROUTING_KEYS.domainChanged} ${before}`, `domain.deleted ${before}`];
  await eventually('the messages written during the outage', () => expected.every((m) => received.includes(m)), {
    timeoutMs: 60_000, explain: () => `received: ${received.join(', ')}\n${api.output()}`,
  });
  await eventually('every outbox row published', async () => (await store.run((r) => r.outbox.unpublished(1000))).length === 0, { timeoutMs: 30_000 });
  expect(await api.ops('/readyz')).toBe(200);
});
