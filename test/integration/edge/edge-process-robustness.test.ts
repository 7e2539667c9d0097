// The malformed and broken traffic of edge-robustness.test.ts against a real
// edge-proxy process (split mode): after each group the process is still the
// same live pid and still answers 200. Split mode needs PostgreSQL and
// RabbitMQ (its own vhost here); like edge-processes.test.ts this file uses
// PostgreSQL whatever TEST_DATABASE names.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { InternalCa } from '@cds/checker';
import { ROUTING_KEYS, type DomainStatus, type Limits } from '@cds/core';
import type { DataStore } from '@cds/data';
import { anApplication } from '../data/data-fixtures';
import { roomInWindow } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { DATA_KEY, type RecordingOrigin } from './edge-fixture';
import { startEdgeProcess, type EdgeProcess } from './edge-process';
import { startEdgeProcessWorld, type EdgeProcessWorld } from './edge-process-world';
import { seedServedDomain } from './served-domain';
import { exchange, malformedRequests, malformedUpgrades, openRaw, smugglingRequests, statusesOf, statusOf, type RawTarget } from './hostile-client';

const WS_HEADERS = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

interface Site {
  applicationId: string;
  domainId: string;
  hostname: string;
}

let world: EdgeProcessWorld;
let store: DataStore;
let ca: InternalCa;
let caPem: string;
let origin: RecordingOrigin;
let edge: EdgeProcess;
let pid: number;
let site: Site;
let other: Site;
let attention: Site;
let limited: Site;

async function addSite(limits: Partial<Limits>, status: DomainStatus = 'ready'): Promise<Site> {
  const app = anApplication();
  app.limits = { ...app.limits, ...limits };
  const { domain } = await seedServedDomain(store, ca, DATA_KEY, origin.url, { app, domain: { status, reference: `hostile-${randomBytes(3).toString('hex')}` } });
  return { applicationId: app.id, domainId: domain.id, hostname: domain.hostname };
}

beforeAll(async () => {
  world = await startEdgeProcessWorld('edge-process-robustness');
  ({ store, ca, caPem, origin } = world);
  site = await addSite({ proxied_requests_per_second: 100_000, proxied_requests_per_minute: 1_000_000 });
  other = await addSite({});
  attention = await addSite({}, 'attention_required');
  limited = await addSite({ proxied_requests_per_second: 1, proxied_requests_per_minute: 1 });
  edge = await startEdgeProcess(world.env(), caPem);
  pid = edge.child.pid as number;
});

afterAll(async () => {
  edge?.kill();
  await world?.close();
});

const tlsTo = (s: Site): RawTarget => ({ port: edge.httpsPort, servername: s.hostname, ca: caPem });
const plain = (): RawTarget => ({ port: edge.httpPort });

/** The same process is alive (signal 0 reaches its pid) and still answers 200 over HTTPS and 308 over HTTP. */
async function stillAlive(): Promise<void> {
  expect(() => process.kill(pid, 0)).not.toThrow();
  expect(edge.child.exitCode).toBeNull();
  expect(edge.child.signalCode).toBeNull();
  const reply = await edge.get(site.hostname, '/alive', { agent: false });
  expect(reply.status).toBe(200);
  expect(reply.body.toString()).toBe('origin /alive');
  expect(statusOf(await exchange(plain(), [`GET / HTTP/1.1\r\nHost: ${site.hostname}\r\nConnection: close\r\n\r\n`]))).toBe(308);
}

it('answers 400 to each malformed request over TLS and on the plain-HTTP port, forwarding none', async () => {
  const before = origin.requests.length;
  const answers: Array<[string, string, number]> = [];
  for (const [name, request] of malformedRequests(site.hostname)) {
    answers.push([name, 'https', statusOf(await exchange(tlsTo(site), [request]))]);
    answers.push([name, 'http', statusOf(await exchange(plain(), [request]))]);
  }
  expect(answers.filter(([, , status]) => status !== 400)).toEqual([]);
  expect(origin.requests.length).toBe(before);
  await stillAlive();
});

it('answers each Transfer-Encoding smuggling form with 400 or 501 and closes, forwarding neither request', async () => {
  const wrong: string[] = [];
  for (const target of [tlsTo(site), plain()]) {
    for (const [name, request, answer] of smugglingRequests(site.hostname, '/smuggled')) {
      const connection = await openRaw(target);
      connection.write(request);
      const state = await connection.closed(3_000);
      const statuses = statusesOf(connection.received);
      if (state !== 'closed' || statuses.length !== 1 || statuses[0] !== answer) wrong.push(`${name} (${target.servername ? 'https' : 'http'}): ${state}, ${JSON.stringify(statuses)}`);
    }
  }
  expect(wrong).toEqual([]);
  expect(origin.saw('/outer')).toBe(0);
  expect(origin.saw('/smuggled')).toBe(0);
  await stillAlive();
});

it('answers 431 to 64 KiB of headers and 408 to headers that never finish', async () => {
  expect(statusOf(await exchange(tlsTo(site), [`GET / HTTP/1.1\r\nHost: ${site.hostname}\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`]))).toBe(431);
  expect(statusOf(await exchange(plain(), [`GET / HTTP/1.1\r\nHost: ${site.hostname}\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`]))).toBe(431);
  // The process's headers timeout is 10 s.
  const slow = await openRaw(tlsTo(site));
  const started = Date.now();
  const closedAfter = slow.closed(20_000).then((state) => (state === 'closed' ? Date.now() - started : Infinity));
  slow.write(`GET / HTTP/1.1\r\nHost: ${site.hostname}\r\n`);
  for (let i = 0; i < 40 && !slow.ended; i++) {
    await sleep(500); // deliberate: a header line every 500 ms, never the end, is the scenario
    if (!slow.ended) slow.write(`X-${i}: 1\r\n`);
  }
  expect(statusOf(slow.received)).toBe(408);
  expect(await closedAfter).toBeLessThan(13_000);
  await stillAlive();
});

it('refuses each malformed upgrade', async () => {
  const wrong: string[] = [];
  for (const [name, request, answer] of malformedUpgrades(site.hostname, other.hostname)) {
    const connection = await openRaw(tlsTo(site));
    connection.write(request);
    const state = await connection.closed(3_000);
    if (state !== 'closed' || statusOf(connection.received) !== answer) wrong.push(`${name}: ${state}, ${JSON.stringify(connection.received.slice(0, 60))}`);
  }
  expect(wrong).toEqual([]);
  expect(origin.saw('/ws')).toBe(0);
  await stillAlive();
});

it('survives clients that reset (TCP RST) during upgrade admission, right after a refused upgrade and on an open WebSocket', async () => {
  const upgrade = (host: string) => `GET /ws HTTP/1.1\r\nHost: ${host}\r\n${WS_HEADERS}\r\n`;
  // During admission: the route dropped by the fan-out just before, so admitting waits for the database.
  for (let i = 0; i < 10; i++) {
    const connection = await openRaw(tlsTo(site));
    await world.bus.publish(ROUTING_KEYS.domainChanged, { domain_id: site.domainId, hostname: site.hostname, application_id: site.applicationId, change: 'status' });
    // Deliberate: time for the message to reach the other process, where nothing shows when it has arrived.
    await sleep(50);
    connection.write(upgrade(site.hostname));
    await connection.reset();
  }
  // Right after the edge refused the upgrade (400, 421, 503, 429).
  // In one clock minute (the edge process keeps real time: no clock to move).
  await roomInWindow(5);
  while ((await edge.get(limited.hostname, '/spend', { agent: false })).status === 200);
  const refusals: Array<[Site, string, number]> = [
    [site, `GET /ws HTTP/1.1\r\nHost: ${site.hostname}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n`, 400],
    [site, upgrade(other.hostname), 421],
    [attention, upgrade(attention.hostname), 503],
    [limited, upgrade(limited.hostname), 429],
  ];
  for (const [target, request, answer] of refusals) {
    const connection = await openRaw(tlsTo(target));
    connection.write(request);
    await connection.until((received) => received.includes('\r\n\r\n'));
    expect(statusOf(connection.received)).toBe(answer);
    await connection.reset();
  }
  // An open WebSocket.
  const open = await openRaw(tlsTo(site));
  open.write(upgrade(site.hostname));
  await open.until((received) => received.startsWith('HTTP/1.1 101 '));
  await open.reset();
  await eventually('every origin WebSocket closed', () => origin.openWebSockets() === 0, { timeoutMs: 3_000 });
  await sleep(300); // deliberate: time for the resets to do harm, if they could; the quiet is what is checked
  await stillAlive();

  const ws = new WebSocket(`wss://127.0.0.1:${edge.httpsPort}/ws`, { ca: caPem, headers: { host: site.hostname }, ...{ servername: site.hostname } });
  try {
    const echo = await new Promise<string>((resolve, reject) => {
      ws.on('open', () => ws.send('after the resets'));
      ws.on('message', (data) => resolve(data.toString()));
      ws.on('error', reject);
    });
    expect(echo).toBe('echo: after the resets');
  } finally {
    ws.terminate();
  }
});

it('survives clients that reset mid-headers, mid-body and mid-response, and an origin that resets mid-body', async () => {
  const midHeaders = await openRaw(tlsTo(site));
  midHeaders.write(`GET / HTTP/1.1\r\nHost: ${site.hostname}\r\nX-A`);
  // Deliberate: the partial request has to reach the edge before the reset, and nothing shows when it has.
  await sleep(100);
  await midHeaders.reset();

  const midBody = await openRaw(tlsTo(site));
  midBody.write(`POST /upload HTTP/1.1\r\nHost: ${site.hostname}\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(1000)}`);
  // The edge streams the body on: the upload has begun at the origin, part of its body through the edge, before the reset.
  await eventually('the upload begun at the origin', () => origin.inFlight() === 1, { timeoutMs: 3_000 });
  await midBody.reset();

  const midResponse = await openRaw(tlsTo(site));
  midResponse.write(`GET /bytes/5000000 HTTP/1.1\r\nHost: ${site.hostname}\r\n\r\n`);
  await midResponse.until((received) => received.length > 100_000);
  await midResponse.reset();

  const cut = await openRaw(tlsTo(site));
  cut.write(`GET /cut/100000 HTTP/1.1\r\nHost: ${site.hostname}\r\n\r\n`);
  expect(await cut.closed(5_000)).toBe('closed');
  const received = cut.received;
  expect(statusOf(received)).toBe(200);
  expect(received).toMatch(/content-length: 200000\r\n/i);
  expect(received.length - received.indexOf('\r\n\r\n') - 4).toBeLessThan(200_000);

  // Every request the resets cut has ended at the origin too: the edge has dealt with all of them.
  await eventually('the origin to finish or drop every request', () => origin.inFlight() === 0, { timeoutMs: 5_000 });
  await stillAlive();
});
