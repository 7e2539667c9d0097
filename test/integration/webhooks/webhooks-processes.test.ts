// Split-mode dispatcher processes (`node services/webhook-dispatcher/dist/main.js`)
// over one PostgreSQL database and one RabbitMQ vhost:
// - two replicas share the work and never send one attempt of a delivery twice;
// - a retry scheduled by one process is sent on time by the process that
//   replaces it (the schedule lives in the database, a restart loses none).
// Split mode needs a database the processes share, which is PostgreSQL only
// (DECISIONS §1): like the edge process tests, this file uses PostgreSQL
// whatever TEST_DATABASE names.
//
// Which process sent a request: every process resolves the receiver's name
// with its own DNS server (DNS_SERVERS), which answers with its own loopback
// address, and the receiver listens on both; the address a request came in on
// names the process. Which attempt of which delivery a request is: the
// receiver looks the delivery up by its event id when the request arrives; a
// dispatcher writes an attempt's outcome only after the answer, so the row
// still counts the attempts made before this one.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROUTING_KEYS } from '@cds/core';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { sampleDomainResource } from '../../support/domain-resource';
import { startDnsResponder, type DnsResponder } from '../../support/dns-responder';
import { eventually } from '../../support/eventually';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { createTestCa, type TestCa } from '../../support/webhook-receiver';
import { dispatcherEnv, startBrokerRelay, startDispatcherProcess, stop, waitForDispatcherBuild, type BrokerRelay, type DispatcherProcess } from './dispatcher-process';

const HOST = 'replicas.webhooks.test';
/** The address each process's DNS server gives for HOST. */
const VIA = { first: '127.0.0.2', second: '127.0.0.3' } as const;

interface Route {
  appId: string;
  subscriptionId: string;
}

/** One POST as the receiver saw it. */
interface Seen {
  path: string;
  eventId: string;
  deliveryId: string;
  /** 1 for the delivery's first attempt; 0 when the delivery was not found. */
  attempt: number;
  /** The receiver address the request came in on: which process sent it. */
  via: string;
  at: number;
  status: number;
}

let db: TestDatabase;
let api: TestApi;
let ca: TestCa;
let broker: BrokerRelay;
let dns: { first: DnsResponder; second: DnsResponder };
let servers: https.Server[] = [];
let port: number;
const routes = new Map<string, Route>();
const seen: Seen[] = [];
const processes: DispatcherProcess[] = [];

/** Answers 500 to the first attempt of every delivery and 200 to the later ones. */
async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const at = Date.now();
  req.resume();
  await once(req, 'end');
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const eventId = String(req.headers['x-custom-domain-event-id']);
  const route = routes.get(path);
  const rows = route ? await api.store.run((r) => r.webhookDeliveries.list(route.appId, route.subscriptionId, { limit: 10_000, offset: 0 })) : [];
  const delivery = rows.find((d) => d.eventId === eventId);
  const attempt = delivery ? delivery.attempts + 1 : 0;
  const status = attempt === 1 ? 500 : attempt > 1 ? 200 : 404;
  seen.push({ path, eventId, deliveryId: delivery?.id ?? '', attempt, via: req.socket.localAddress ?? '', at, status });
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(String(status));
}

async function listen(host: string, onPort: number): Promise<https.Server> {
  const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    receive(req, res).catch(() => {
      res.writeHead(503);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(onPort, host, () => resolve());
  });
  return server;
}

async function subscribe(path: string): Promise<Route> {
  const { slug, key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  const appId = (await api.store.run((r) => r.applications.findLiveBySlug(slug)))?.id as string;
  const sub = await api.request('POST', '/v1/webhooks', { token: key, body: { url: `https://${HOST}:${port}${path}`, events: ['domain.ready'] } });
  expect(sub.status).toBe(201);
  const route = { appId, subscriptionId: sub.body.id as string };
  routes.set(path, route);
  return route;
}

/** Writes `event.emitted` outbox rows, as the checker would, in one transaction. */
async function emit(appId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const createdAt = new Date().toISOString().replace('Z', '+00:00');
  await api.store.transaction(async (r) => {
    for (const eventId of ids) {
      await r.outbox.add(ROUTING_KEYS.eventEmitted, { event_id: eventId, type: 'domain.ready', application_id: appId, created_at: createdAt, data: { domain: sampleDomainResource() } });
    }
  });
  broker.relay.kick();
  return ids;
}

const deliveriesOf = (route: Route) => api.store.run((r) => r.webhookDeliveries.list(route.appId, route.subscriptionId, { limit: 10_000, offset: 0 }));

function envFor(which: keyof typeof VIA, retrySchedule: string): Record<string, string> {
  return dispatcherEnv(db.url, broker.vhost.url, api.config.dataEncryptionKey, {
    DNS_SERVERS: dns[which].server,
    WEBHOOK_CA_BUNDLE: ca.caFile,
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
    // The receiver answers after a database read: on a busy machine that can take a second or two,
    // and an answer past the timeout would be a failed attempt the scenarios do not expect.
    WEBHOOK_TIMEOUT: '5s',
    WEBHOOK_RETRY_SCHEDULE: retrySchedule,
  });
}

async function startProcess(which: keyof typeof VIA, retrySchedule: string): Promise<DispatcherProcess> {
  const proc = await startDispatcherProcess(envFor(which, retrySchedule));
  processes.push(proc);
  return proc;
}

async function stopGracefully(proc: DispatcherProcess): Promise<void> {
  await stop(proc);
  expect({ exitCode: proc.child.exitCode, signal: proc.child.signalCode }).toEqual({ exitCode: 0, signal: null });
}

beforeAll(async () => {
  await waitForDispatcherBuild();
  db = await createTestDatabase('postgres');
  ca = createTestCa([HOST]);
  dns = { first: await startDnsResponder({ [HOST]: VIA.first }), second: await startDnsResponder({ [HOST]: VIA.second }) };
  // One port on both addresses.
  const first = await listen(VIA.first, 0);
  port = (first.address() as AddressInfo).port;
  servers = [first, await listen(VIA.second, port)];
  // The API checks the URL at create with the first process's DNS server.
  api = await startTestApi({ DNS_SERVERS: dns.first.server, WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' }, { url: db.url });
  broker = await startBrokerRelay(api.store);
});

afterAll(async () => {
  for (const proc of processes) await stop(proc);
  await broker?.close();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await dns?.first.close();
  await dns?.second.close();
  await api?.close();
  await db?.drop();
  ca?.remove();
});

it('two replicas over one database and queue deliver everything and never send one attempt twice', async () => {
  const EVENTS = 200;
  const route = await subscribe('/replicas');
  const first = await startProcess('first', '200ms');
  const second = await startProcess('second', '200ms');

  // In waves, so that both consume events, fan out and claim due deliveries at the same time.
  const eventIds: string[] = [];
  for (let wave = 0; wave < 4; wave++) {
    eventIds.push(...(await emit(route.appId, EVENTS / 4)));
    await sleep(250); // the pace of the waves is the scenario
  }
  // Every first attempt fails, so the subscription keeps cooling (DECISIONS §10: one attempt at
  // a time after 5 failures in a row, until a retry succeeds): slower than sending at will.
  await eventually('every delivery delivered', async () => {
    const rows = await deliveriesOf(route);
    return rows.length === EVENTS && rows.every((d) => d.state === 'delivered');
  }, { timeoutMs: 240_000 });
  // Anything sent twice would come in now at the latest (the processes look for due work every second): the quiet is what is checked.
  await sleep(2000);

  const rows = await deliveriesOf(route);
  expect(rows).toHaveLength(EVENTS);
  expect(new Set(rows.map((d) => d.eventId))).toEqual(new Set(eventIds));
  expect(rows.filter((d) => d.state !== 'delivered' || d.attempts !== 2)).toEqual([]);

  const requests = seen.filter((s) => s.path === '/replicas');
  // Every POST belongs to a delivery of this subscription.
  expect(requests.filter((s) => s.attempt === 0)).toEqual([]);
  // Each (delivery, attempt) was received exactly once: attempt 1 (answered 500) and attempt 2 (200), nothing else.
  const counts = new Map<string, number>();
  for (const s of requests) counts.set(`${s.deliveryId}#${s.attempt}`, (counts.get(`${s.deliveryId}#${s.attempt}`) ?? 0) + 1);
  const twice = [...counts].filter(([, n]) => n > 1);
  expect(twice).toEqual([]);
  expect(new Set(counts.keys())).toEqual(new Set(rows.flatMap((d) => [`${d.id}#1`, `${d.id}#2`])));
  expect(requests).toHaveLength(2 * EVENTS);
  // The attempt history agrees: one failed attempt, then one delivered, per delivery.
  const histories = await api.store.run(async (r) => Promise.all(rows.map((d) => r.webhookDeliveries.attemptsOf(d.id))));
  expect(histories.filter((h) => JSON.stringify(h.map((a) => [a.attempt, a.statusCode])) !== '[[1,500],[2,200]]')).toEqual([]);

  // Both processes sent some.
  const byFirst = requests.filter((s) => s.via === VIA.first).length;
  const bySecond = requests.filter((s) => s.via === VIA.second).length;
  const retriesByOther = rows.filter((d) => {
    const [one, two] = [1, 2].map((n) => requests.find((s) => s.deliveryId === d.id && s.attempt === n)?.via);
    return one !== two;
  }).length;
  console.log(
    `webhook replicas: ${EVENTS} deliveries, ${requests.length} POSTs, none twice; ` +
      `first process sent ${byFirst}, second ${bySecond}; ${retriesByOther} retries sent by the other process than the first attempt`,
  );
  expect(byFirst + bySecond).toBe(requests.length);
  expect(byFirst).toBeGreaterThan(0);
  expect(bySecond).toBeGreaterThan(0);

  await stopGracefully(first);
  await stopGracefully(second);
});

it('sends a retry scheduled before a restart at its time, from the process that replaced the one that scheduled it', async () => {
  const DELAY_MS = 8000;
  // The new process looks for due deliveries written by others every second
  // (the dispatcher's poll interval); beyond that, the time to send.
  const MARGIN_MS = 2000;
  const route = await subscribe('/restart');
  const first = await startProcess('first', `${DELAY_MS / 1000}s`);

  const [eventId] = await emit(route.appId, 1);
  const attempt1 = await eventually('the first attempt', () => seen.find((s) => s.eventId === eventId && s.attempt === 1));
  expect(attempt1).toMatchObject({ status: 500, via: VIA.first });
  // Its outcome written: the retry is due DELAY_MS after the attempt ended.
  const scheduled = await eventually('the first attempt recorded', async () => {
    const [row] = await deliveriesOf(route);
    return row?.attempts === 1 && row;
  });
  expect(scheduled.state).toBe('pending');
  const dueAt = scheduled.nextAttemptAt?.getTime() ?? 0;
  expect(dueAt - attempt1.at).toBeGreaterThanOrEqual(DELAY_MS);
  expect(dueAt - attempt1.at).toBeLessThan(DELAY_MS + 1000);

  // Stopped right after the failed attempt, then replaced.
  await stopGracefully(first);
  const [afterStop] = await deliveriesOf(route);
  expect(afterStop).toMatchObject({ state: 'pending', attempts: 1, leaseId: null });
  expect(afterStop?.nextAttemptAt?.getTime()).toBe(dueAt);
  await startProcess('second', `${DELAY_MS / 1000}s`);
  // For the timing below to mean anything, the new process runs before the retry is due.
  expect(Date.now()).toBeLessThan(dueAt - 1000);

  const attempt2 = await eventually('the second attempt', () => seen.find((s) => s.eventId === eventId && s.attempt === 2), { timeoutMs: DELAY_MS + 10_000 });
  console.log(`webhook restart: retry due ${dueAt - attempt1.at} ms after the first attempt arrived; sent by the new process ${attempt2.at - dueAt} ms after it was due`);
  expect(attempt2).toMatchObject({ status: 200, via: VIA.second, deliveryId: scheduled.id });
  expect(attempt2.at).toBeGreaterThanOrEqual(dueAt);
  expect(attempt2.at - dueAt).toBeLessThanOrEqual(MARGIN_MS);

  const delivered = await eventually('delivered', async () => {
    const [row] = await deliveriesOf(route);
    return row?.state === 'delivered' && row;
  });
  expect(delivered).toMatchObject({ attempts: 2, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
  const history = await api.store.run((r) => r.webhookDeliveries.attemptsOf(scheduled.id));
  expect(history.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([[1, 500, 'receiver answered HTTP 500'], [2, 200, null]]);
  expect(history[1]?.startedAt.getTime()).toBeGreaterThanOrEqual(dueAt);
  await sleep(1500); // no third attempt for 1.5 s (the processes look for due work every second): the quiet is what is checked
  expect(seen.filter((s) => s.eventId === eventId)).toHaveLength(2);
});
