// Malformed, hostile and broken traffic over real TLS and on the plain-HTTP
// listener: every case gets 400, 408, 431 or 501 (or a closed connection),
// nothing malformed reaches the origin, clients and origins that reset (a real
// TCP RST) only end their own request, and the edge keeps serving others.
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { ROUTING_KEYS } from '@cds/core';
import { eventually } from '../../support/eventually';
import { gatedStore, startEdgeFixture, type EdgeFixture, type GatedStore } from './edge-fixture';
import { exchange, malformedRequests, malformedUpgrades, openRaw, smugglingRequests, statusesOf, statusOf, type RawTarget } from './hostile-client';

let f: EdgeFixture;
let gate: GatedStore;
// Known before the tables below are built (they hold the raw requests).
const hostname = `robust-${process.pid}.example.net`;
const otherHostname = `robust-other-${process.pid}.example.net`;
let attentionHostname: string;
let limitedHostname: string;

beforeAll(async () => {
  f = await startEdgeFixture({ headersTimeoutMs: 1_000 }, {
    edgeStore: (store) => {
      gate = gatedStore(store);
      return gate.store;
    },
  });
  const app = await f.addApplication({ proxied_requests_per_second: 100_000, proxied_requests_per_minute: 1_000_000 });
  await f.addDomain(app.id, { hostname });
  await f.addDomain(app.id, { hostname: otherHostname });
  attentionHostname = (await f.addDomain(app.id, { status: 'attention_required' })).hostname;
  const limited = await f.addApplication({ proxied_requests_per_second: 1, proxied_requests_per_minute: 1 });
  limitedHostname = (await f.addDomain(limited.id)).hostname;
});
afterAll(async () => {
  gate?.release();
  await f?.close();
});

const tlsTo = (servername: string): RawTarget => ({ port: f.edge.httpsPort, servername, ca: f.caPem });
const https = (): RawTarget => tlsTo(hostname);
const plain = (): RawTarget => ({ port: f.edge.httpPort });
const smuggling = (hidden: string) => smugglingRequests(hostname, hidden).map(([name, request, answer]) => ({ name, request, answer }));

/** Sends `request` on a new connection and waits for the edge to close it: what it answered before. */
async function answeredThenClosed(target: RawTarget, request: string): Promise<string> {
  const connection = await openRaw(target);
  connection.write(request);
  expect(await connection.closed(3_000)).toBe('closed');
  return connection.received;
}

async function stillServing(): Promise<void> {
  expect((await f.get(hostname, '/alive')).status).toBe(200);
  expect((await f.plain(hostname, '/alive')).status).toBe(308);
}

async function webSocketEcho(): Promise<string> {
  const ws = new WebSocket(`wss://127.0.0.1:${f.edge.httpsPort}/ws`, { ca: f.caPem, headers: { host: hostname }, ...{ servername: hostname } });
  try {
    return await new Promise<string>((resolve, reject) => {
      ws.on('open', () => ws.send('still here'));
      ws.on('message', (data) => resolve(data.toString()));
      ws.on('error', reject);
    });
  } finally {
    ws.terminate();
  }
}

describe('malformed requests over TLS', () => {
  it.each(malformedRequests(hostname))('answers 400 to %s, forwards nothing, and stays up', async (_name, request) => {
    const before = f.origin.requests.length;
    const response = await exchange(https(), [request]);
    expect(statusOf(response)).toBe(400);
    expect(f.origin.requests.length).toBe(before);
    await stillServing();
  });

  it.each(smuggling('/smuggled-tls'))('answers $name with $answer and closes, forwarding neither request', async ({ request, answer }) => {
    expect(statusesOf(await answeredThenClosed(https(), request))).toEqual([answer]);
    expect(f.origin.saw('/outer')).toBe(0);
    expect(f.origin.saw('/smuggled-tls')).toBe(0);
    await stillServing();
  });

  it('reads Transfer-Encoding with a tab before chunked (whitespace HTTP allows there) as chunked: one request, the body decoded', async () => {
    const before = f.origin.requests.length;
    const response = await exchange(https(), [`POST /tab HTTP/1.1\r\nHost: ${hostname}\r\nTransfer-Encoding:\tchunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n`]);
    expect(statusesOf(response)).toEqual([200]);
    expect(f.origin.requests.slice(before).map((r) => [r.url, r.body])).toEqual([['/tab', 'hello']]);
  });

  it('answers 431 to 64 KiB of headers', async () => {
    const response = await exchange(https(), [`GET / HTTP/1.1\r\nHost: ${hostname}\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`]);
    expect(statusOf(response)).toBe(431);
    await stillServing();
  });

  it('answers 408 to headers that never finish (slowloris)', async () => {
    const started = Date.now();
    const response = await exchange(https(), [`GET / HTTP/1.1\r\nHost: ${hostname}\r\n`, 'X-A: 1\r\n', 'X-B: 2\r\n', 'X-C: 3\r\n'], { gapMs: 400, waitMs: 6_000 });
    expect(statusOf(response)).toBe(408);
    expect(Date.now() - started).toBeLessThan(5_000);
    await stillServing();
  });

  it('answers pipelined requests in order', async () => {
    const one = `GET /first HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`;
    const two = `GET /second HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`;
    const response = await exchange(https(), [one + two]);
    expect(statusesOf(response)).toEqual([200, 200]);
    expect(response.indexOf('origin /first')).toBeLessThan(response.indexOf('origin /second'));
  });

  it('smuggling: a second request hidden in a body is not read as a request', async () => {
    const hidden = `GET /hidden HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`;
    const before = f.origin.requests.length;
    const response = await exchange(https(), [`POST /outer-cl HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: ${hidden.length}\r\nConnection: close\r\n\r\n${hidden}`]);
    expect(statusesOf(response)).toEqual([200]);
    const seen = f.origin.requests.slice(before);
    expect(seen.map((r) => r.url)).toEqual(['/outer-cl']);
    expect(seen[0]?.body).toBe(hidden);
  });
});

describe('malformed requests on the plain-HTTP listener', () => {
  it.each(malformedRequests(hostname))('answers 400 to %s and stays up', async (_name, request) => {
    expect(statusOf(await exchange(plain(), [request]))).toBe(400);
    await stillServing();
  });

  it.each(smuggling('/smuggled-plain'))('answers $name with $answer and closes', async ({ request, answer }) => {
    expect(statusesOf(await answeredThenClosed(plain(), request))).toEqual([answer]);
    await stillServing();
  });

  it('answers 431 to 64 KiB of headers and 408 to headers that never finish', async () => {
    expect(statusOf(await exchange(plain(), [`GET / HTTP/1.1\r\nHost: ${hostname}\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`]))).toBe(431);
    const slow = await exchange(plain(), [`GET / HTTP/1.1\r\nHost: ${hostname}\r\n`, 'X-A: 1\r\n', 'X-B: 2\r\n', 'X-C: 3\r\n'], { gapMs: 400, waitMs: 6_000 });
    expect(statusOf(slow)).toBe(408);
    await stillServing();
  });

  it('redirects a WebSocket upgrade like any request (nothing is proxied in plain HTTP)', async () => {
    const before = f.origin.requests.length;
    const response = await exchange(plain(), [`GET /ws HTTP/1.1\r\nHost: ${hostname}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`], { waitMs: 1_000 });
    expect(statusOf(response)).toBe(308);
    expect(f.origin.requests.length).toBe(before);
    await stillServing();
  });
});

describe('upgrades', () => {
  it.each(malformedUpgrades(hostname, otherHostname).map(([name, request, answer]) => ({ name, request, answer })))('refuses $name ($answer; 0: closed without an answer) and stays up', async ({ request, answer }) => {
    const upgradesBefore = f.origin.saw('/ws');
    expect(statusOf(await answeredThenClosed(https(), request))).toBe(answer);
    expect(f.origin.saw('/ws')).toBe(upgradesBefore);
    await stillServing();
  });

  it('survives a client that resets while its upgrade waits for the database', async () => {
    expect((await f.get(hostname, '/warm')).status).toBe(200);
    const connection = await openRaw(https());
    // The route is dropped and the database held: admitting the upgrade must wait for it.
    await f.bus.publish(ROUTING_KEYS.domainChanged, { domain_id: '3f1d8f4e-0000-4000-8000-00000000000a', hostname, application_id: '3f1d8f4e-0000-4000-8000-00000000000b', change: 'status' });
    await f.bus.whenIdle();
    const upgradesBefore = f.origin.saw('/ws');
    gate.hold();
    try {
      connection.write(`GET /ws HTTP/1.1\r\nHost: ${hostname}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
      await eventually('the upgrade to wait for the database', () => gate.waiting > 0, { timeoutMs: 3_000 });
      await connection.reset();
      // The edge's socket sees the reset while nothing but the upgrade handler holds it: the reset has to arrive
      // before the gate opens, and nothing shows when it has.
      await sleep(200);
    } finally {
      gate.release();
    }
    await eventually('the held database reads to pass', () => gate.waiting === 0, { timeoutMs: 3_000 });
    await sleep(200); // nothing reaches the origin afterwards either: the quiet is what is checked
    // The client is gone: the upgrade is not carried on to the origin.
    expect(f.origin.saw('/ws')).toBe(upgradesBefore);
    expect(f.origin.openWebSockets()).toBe(0);
    await stillServing();
    expect(await webSocketEcho()).toBe('echo: still here');
  });

  it('survives clients that reset right after the edge refused their upgrade (400, 421, 503, 429)', async () => {
    const ws = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
    // Spend the limited application's budget in a fresh minute.
    f.clock.startWindow(60);
    let spent = 0;
    while ((await f.get(limitedHostname)).status === 200) spent += 1;
    expect(spent).toBeLessThanOrEqual(1);
    const cases: Array<[RawTarget, string, number]> = [
      [https(), `GET /ws HTTP/1.1\r\nHost: ${hostname}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n`, 400],
      [https(), `GET /ws HTTP/1.1\r\nHost: ${otherHostname}\r\n${ws}\r\n`, 421],
      [tlsTo(attentionHostname), `GET /ws HTTP/1.1\r\nHost: ${attentionHostname}\r\n${ws}\r\n`, 503],
      [tlsTo(limitedHostname), `GET /ws HTTP/1.1\r\nHost: ${limitedHostname}\r\n${ws}\r\n`, 429],
    ];
    for (const [target, request, answer] of cases) {
      const connection = await openRaw(target);
      connection.write(request);
      await connection.until((received) => received.includes('\r\n\r\n'));
      expect(statusOf(connection.received)).toBe(answer);
      await connection.reset();
      await sleep(100); // time for the reset to do harm, if it could: the quiet is what is checked
      await stillServing();
    }
  });

  it('survives clients that reset at once after sending an upgrade, and one that resets an open WebSocket', async () => {
    const request = `GET /ws HTTP/1.1\r\nHost: ${hostname}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;
    for (let i = 0; i < 20; i++) {
      const connection = await openRaw(https());
      connection.write(request);
      if (i % 2 === 1) await sleep(i); // resets at varying moments of the upgrade are the scenario
      await connection.reset();
    }
    const open = await openRaw(https());
    open.write(request);
    await open.until((received) => received.startsWith('HTTP/1.1 101 '));
    await open.reset();
    // Every origin connection behind a client that left is closed too.
    await eventually('every origin WebSocket closed', () => f.origin.openWebSockets() === 0, { timeoutMs: 3_000 });
    await stillServing();
    expect(await webSocketEcho()).toBe('echo: still here');
  });
});

describe('broken connections', () => {
  it('survives clients that reset (TCP RST) mid-headers, mid-body, while waiting for the origin and mid-response', async () => {
    const midHeaders = await openRaw(https());
    midHeaders.write(`GET / HTTP/1.1\r\nHost: ${hostname}\r\nX-A`);
    // The partial request has to reach the edge before the reset, and nothing shows when it has.
    await sleep(100);
    await midHeaders.reset();

    const midBody = await openRaw(https());
    midBody.write(`POST /upload HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: 100000\r\n\r\n`);
    midBody.write('x'.repeat(1000));
    await sleep(100); // as above: part of the body at the edge before the reset
    await midBody.reset();

    const slowBefore = f.origin.saw('/slow/500');
    const waiting = await openRaw(https());
    waiting.write(`GET /slow/500 HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    await eventually('the slow request at the origin', () => f.origin.saw('/slow/500') > slowBefore, { timeoutMs: 3_000 });
    await waiting.reset();

    const midResponse = await openRaw(https());
    midResponse.write(`GET /bytes/5000000 HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    await midResponse.until((received) => received.length > 100_000);
    expect(statusOf(midResponse.received)).toBe(200);
    await midResponse.reset();

    // Every request the resets cut has ended at the origin too: the edge has dealt with all of them.
    await eventually('the origin to finish or drop every request', () => f.origin.inFlight() === 0, { timeoutMs: 5_000 });
    await stillServing();
  });

  it.each([
    ['with a Content-Length', '/cut/100000', 'content-length: 200000'],
    ['chunked', '/cut-chunked/100000', 'transfer-encoding: chunked'],
  ])('cuts the client off when the origin resets mid-body (%s): never a complete-looking answer', async (_name, path, framing) => {
    const connection = await openRaw(https());
    connection.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    expect(await connection.closed(5_000)).toBe('closed');
    const received = connection.received;
    const headEnd = received.indexOf('\r\n\r\n');
    expect(statusOf(received)).toBe(200);
    expect(received.slice(0, headEnd).toLowerCase()).toContain(framing);
    const body = received.slice(headEnd + 4);
    expect(body.length).toBeGreaterThanOrEqual(1000);
    if (framing.startsWith('content-length')) expect(body.length).toBeLessThan(200_000);
    else expect(body.endsWith('\r\n0\r\n\r\n')).toBe(false);
    // An HTTP client sees an error, not an answer.
    await expect(f.get(hostname, path)).rejects.toThrow();
    await stillServing();
  });

  it('survives an origin that resets before answering, and TLS garbage before a handshake', async () => {
    expect((await f.get(hostname, '/reset')).status).toBe(502);
    await new Promise<void>((resolve) => {
      const s = net.connect(f.edge.httpsPort, '127.0.0.1', () => s.end('\x16\x03\x01garbage-not-tls\r\n\r\n'));
      s.resume();
      s.on('error', () => resolve());
      s.on('close', () => resolve());
    });
    await stillServing();
  });

  it('keeps serving others while 50 hostile connections are open', async () => {
    const hostile = Array.from({ length: 50 }, (_, i) => exchange(https(), [`GET / HTTP/1.1\r\nHost: ${hostname}\r\nX-${i}: `], { waitMs: 1_500 }));
    await stillServing();
    await Promise.all(hostile);
    await stillServing();
  });
});
