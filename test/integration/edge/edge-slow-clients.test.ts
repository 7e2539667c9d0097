// Slow and silent clients (DECISIONS §5), HTTP/1.1 and HTTP/2 alike: silent
// HTTP/2 sessions are destroyed 10 s after their GOAWAY whatever their
// streams, a body that stalls is ended (a shortened progress window here),
// headers must come within 10 s, header lists are capped at 16 KiB, and one
// client address may hold only EDGE_MAX_CONNECTIONS_PER_CLIENT connections;
// a WebSocket quiet for EDGE_WEBSOCKET_IDLE_TIMEOUT is closed.
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import WebSocket from 'ws';
import type { DomainRow } from '@cds/data';
import { eventually } from '../../support/eventually';
import { startEdgeFixture, type EdgeFixture } from './edge-fixture';
import { h2Get, openH2 } from './h2-client';
import { openRaw, statusOf } from './hostile-client';
import { http1Over, proxyV1, tlsWithHeader } from './proxy-client';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How an HTTP/2 stream ended: the status the edge answered (0: none) and when, or the reset code it got; when it closed. */
interface StreamEnd {
  status: number;
  answeredAt: number | null;
  resetCode: number | null;
  at: number;
}

function streamEnd(stream: ClientHttp2Stream, started: number): Promise<StreamEnd> {
  return new Promise((resolve) => {
    let status = 0;
    let answeredAt: number | null = null;
    stream.on('response', (h) => {
      status = Number(h[':status']);
      answeredAt = Date.now() - started;
    });
    stream.on('error', () => undefined);
    stream.resume();
    stream.on('close', () => resolve({ status, answeredAt, resetCode: stream.rstCode === http2.constants.NGHTTP2_NO_ERROR ? null : stream.rstCode ?? null, at: Date.now() - started }));
  });
}

/** A POST stream whose body is sent one byte every `gapMs`, `count` times, then ended. */
async function trickle(session: ClientHttp2Session, hostname: string, path: string, gapMs: number, count: number): Promise<StreamEnd> {
  const started = Date.now();
  const stream = session.request({ ':method': 'POST', ':path': path, ':authority': hostname }, { endStream: false });
  const ended = streamEnd(stream, started);
  for (let i = 0; i < count && !stream.closed; i += 1) {
    stream.write('x');
    await Promise.race([sleep(gapMs), ended]);
  }
  if (!stream.closed) stream.end();
  return ended;
}

describe('at the real deadlines', () => {
  let f: EdgeFixture;
  let domain: DomainRow;
  const MAX = 50;

  beforeAll(async () => {
    f = await startEdgeFixture({ maxConnections: MAX });
    domain = await f.addDomain((await f.addApplication()).id);
  });
  afterAll(() => f.close());

  it(`destroys ${MAX} silent HTTP/2 sessions (one stream open, no END_STREAM) 10 s after their idle GOAWAY, then serves a new client`, async () => {
    const started = Date.now();
    const sessions = await Promise.all(Array.from({ length: MAX }, () => openH2(f.edge.httpsPort, domain.hostname, f.caPem)));
    const closedAt = sessions.map((session) => new Promise<number>((resolve) => session.once('close', () => resolve(Date.now() - started))));
    const goaways = sessions.map((session) => new Promise<number>((resolve) => session.once('goaway', () => resolve(Date.now() - started))));
    // Headers sent, the body never comes: the stream is open at the edge, an origin connection waits for its body.
    for (const session of sessions) session.request({ ':method': 'POST', ':path': '/silent', ':authority': domain.hostname }, { endStream: false }).on('error', () => undefined);
    await sleep(500);
    // Every place is taken: a newcomer is refused now.
    await expect(openH2(f.edge.httpsPort, domain.hostname, f.caPem)).rejects.toThrow();

    const goawayTimes = await Promise.all(goaways);
    const closeTimes = await Promise.all(closedAt);
    // GOAWAY after 5 s of silence; the connection gone 10 s later, the open stream notwithstanding.
    expect(Math.min(...goawayTimes)).toBeGreaterThanOrEqual(4_500);
    expect(Math.max(...closeTimes)).toBeLessThan(Math.max(...goawayTimes) + 14_000);
    expect(Math.min(...closeTimes)).toBeGreaterThanOrEqual(Math.min(...goawayTimes) + 9_000);
    expect((await h2Get(f.edge.httpsPort, domain.hostname, f.caPem, '/after')).status).toBe(200);
  }, 40_000);

  it('closes an HTTP/2 connection whose header block never ends (HEADERS without END_HEADERS) within 10 s', async () => {
    const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const s = tls.connect({ port: f.edge.httpsPort, host: '127.0.0.1', servername: domain.hostname, ca: f.caPem, ALPNProtocols: ['h2'] }, () => resolve(s));
      s.once('error', reject);
    });
    expect(socket.alpnProtocol).toBe('h2');
    socket.on('error', () => undefined);
    socket.resume();
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
    const frame = (type: number, flags: number, stream: number, payload: Buffer) => {
      const head = Buffer.alloc(9);
      head.writeUIntBE(payload.length, 0, 3);
      head[3] = type;
      head[4] = flags;
      head.writeUInt32BE(stream, 5);
      return Buffer.concat([head, payload]);
    };
    const started = Date.now();
    // The preface, empty SETTINGS, then a HEADERS frame (":method: GET", HPACK index 2) whose block never ends.
    socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), frame(4, 0, 0, Buffer.alloc(0)), frame(1, 0, 1, Buffer.from([0x82]))]));
    const at = (await closed) - started;
    expect(at).toBeGreaterThanOrEqual(9_000);
    expect(at).toBeLessThan(11_500);
  }, 20_000);

  it('answers 408 to HTTP/1.1 headers not complete within 10 s and closes the connection', async () => {
    const connection = await openRaw({ port: f.edge.httpsPort, servername: domain.hostname, ca: f.caPem });
    const started = Date.now();
    connection.write(`GET / HTTP/1.1\r\nHost: ${domain.hostname}\r\nX-Slow: `);
    expect(await connection.closed(14_000)).toBe('closed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
    expect(statusOf(connection.received)).toBe(408);
  }, 20_000);
});

describe('with a 2-second body progress window and EDGE_REQUEST_TIMEOUT=12s', () => {
  let f: EdgeFixture;
  let domain: DomainRow;

  beforeAll(async () => {
    f = await startEdgeFixture({ bodyProgressTimeoutMs: 2_000, requestTimeoutMs: 12_000 });
    domain = await f.addDomain((await f.addApplication()).id);
  });
  afterAll(() => f.close());

  it('HTTP/2: a body sending one byte every 4 s is ended (408) within the window, and its origin exchange stopped', async () => {
    const session = await openH2(f.edge.httpsPort, domain.hostname, f.caPem);
    const end = await trickle(session, domain.hostname, '/stalled', 4_000, 5);
    session.close();
    expect(end.status).toBe(408);
    expect(end.at).toBeLessThan(3_950);
    await eventually('the origin exchange to be stopped', () => f.origin.inFlight() === 0);
  }, 20_000);

  it('HTTP/2: a body sending one byte every second is carried whole to the origin', async () => {
    const session = await openH2(f.edge.httpsPort, domain.hostname, f.caPem);
    const end = await trickle(session, domain.hostname, '/steady', 1_000, 5);
    session.close();
    expect(end).toMatchObject({ status: 200, resetCode: null });
    expect(f.origin.requests.filter((r) => r.url === '/steady').map((r) => r.body)).toEqual(['xxxxx']);
  }, 20_000);

  it('HTTP/2: a stream that sends its headers and then nothing is ended within the window, before any idle close', async () => {
    const session = await openH2(f.edge.httpsPort, domain.hostname, f.caPem);
    const started = Date.now();
    const stream = session.request({ ':method': 'POST', ':path': '/', ':authority': domain.hostname, 'content-length': '10' }, { endStream: false });
    const end = await streamEnd(stream, started);
    session.close();
    expect(end.status).toBe(408);
    expect(end.at).toBeLessThan(5_000);
  }, 20_000);

  it('HTTP/1.1: a body that stalls gets 408 and the connection is closed; one that keeps coming is served', async () => {
    const slow = await openRaw({ port: f.edge.httpsPort, servername: domain.hostname, ca: f.caPem });
    slow.write(`POST /upload HTTP/1.1\r\nHost: ${domain.hostname}\r\nContent-Length: 10\r\n\r\nx`);
    expect(await slow.closed(4_000)).toBe('closed');
    expect(statusOf(slow.received)).toBe(408);
    await eventually('the origin exchange to be stopped', () => f.origin.inFlight() === 0);

    const steady = await openRaw({ port: f.edge.httpsPort, servername: domain.hostname, ca: f.caPem });
    steady.write(`POST /upload HTTP/1.1\r\nHost: ${domain.hostname}\r\nContent-Length: 4\r\nConnection: close\r\n\r\n`);
    for (let i = 0; i < 4; i += 1) {
      await sleep(1_000);
      steady.write('y');
    }
    await steady.until((text) => text.includes('origin /upload'));
    expect(statusOf(steady.received)).toBe(200);
    steady.destroy();
  }, 20_000);

  it('ends a request still coming after EDGE_REQUEST_TIMEOUT, though its body never stalls, over HTTP/2 and HTTP/1.1 alike', async () => {
    const session = await openH2(f.edge.httpsPort, domain.hostname, f.caPem);
    const h1 = await openRaw({ port: f.edge.httpsPort, servername: domain.hostname, ca: f.caPem });
    const started = Date.now();
    h1.write(`POST /long HTTP/1.1\r\nHost: ${domain.hostname}\r\nContent-Length: 100\r\n\r\n`);
    const ticker = setInterval(() => h1.write('z'), 1_000);
    try {
      const [h2End, h1Closed] = await Promise.all([trickle(session, domain.hostname, '/long', 1_000, 30), h1.closed(20_000)]);
      expect(h2End.status).toBe(408);
      expect(h2End.answeredAt).toBeGreaterThanOrEqual(11_500);
      expect(h2End.answeredAt).toBeLessThan(15_000);
      expect(h1Closed).toBe('closed');
      expect(statusOf(h1.received)).toBe(408);
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      clearInterval(ticker);
      session.close();
      h1.destroy();
    }
  }, 30_000);

  it('HTTP/2: a header list over 16 KiB gets its stream reset once the edge\'s settings are known, while the session goes on', async () => {
    const session = await openH2(f.edge.httpsPort, domain.hostname, f.caPem);
    if (!session.remoteSettings.maxHeaderListSize || session.remoteSettings.maxHeaderListSize > 16 * 1024) {
      await new Promise((resolve) => session.once('remoteSettings', resolve));
    }
    expect(session.remoteSettings.maxHeaderListSize).toBe(16 * 1024);
    const started = Date.now();
    const big = session.request({ ':path': '/', ':authority': domain.hostname, 'x-big': 'b'.repeat(17 * 1024) });
    const end = await streamEnd(big, started);
    expect(end).toMatchObject({ status: 0, resetCode: http2.constants.NGHTTP2_ENHANCE_YOUR_CALM });
    const small = session.request({ ':path': '/ok', ':authority': domain.hostname });
    expect((await streamEnd(small, started)).status).toBe(200);
    session.close();
  });

  it('HTTP/2: one sent in the first flight, before the edge\'s settings arrive, is ended unserved too (Node answers it 431)', async () => {
    const session = await openH2(f.edge.httpsPort, domain.hostname, f.caPem);
    const started = Date.now();
    const big = session.request({ ':path': '/', ':authority': domain.hostname, 'x-big': 'b'.repeat(17 * 1024) });
    const end = await streamEnd(big, started);
    // The server's SETTINGS are not acknowledged yet, so the HPACK layer lets the block in; Node's HTTP/2 server then
    // checks it against its 16 KiB and answers 431 without a request event: never to the origin, either way.
    expect(end.status === 431 || (end.status === 0 && end.resetCode === http2.constants.NGHTTP2_ENHANCE_YOUR_CALM)).toBe(true);
    const small = session.request({ ':path': '/ok', ':authority': domain.hostname });
    expect((await streamEnd(small, started)).status).toBe(200);
    session.close();
  });

  it('HTTP/1.1: a header list over 16 KiB gets 431', async () => {
    const connection = await openRaw({ port: f.edge.httpsPort, servername: domain.hostname, ca: f.caPem });
    connection.write(`GET / HTTP/1.1\r\nHost: ${domain.hostname}\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`);
    await connection.closed(3_000);
    expect(statusOf(connection.received)).toBe(431);
  });
});

/** TLS from `localAddress` (any 127.x address on Linux). */
function tlsFrom(port: number, localAddress: string, servername: string, ca: string): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const tcp = net.connect({ host: '127.0.0.1', port, localAddress });
    const socket = tls.connect({ socket: tcp, servername, ca, ALPNProtocols: ['http/1.1'] }, () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('EDGE_MAX_CONNECTIONS_PER_CLIENT', () => {
  it('closes the connection past the cap of one address at once while another address is served', async () => {
    const refusals: string[] = [];
    const f = await startEdgeFixture({
      maxConnectionsPerClient: 2,
      observer: { answered: () => undefined, cacheLookup: () => undefined, limited: () => undefined, controlPlane: () => undefined, connectionRefused: (r) => refusals.push(r) },
    });
    try {
      const domain = await f.addDomain((await f.addApplication()).id);
      const held = [await tlsFrom(f.edge.httpsPort, '127.0.0.1', domain.hostname, f.caPem), await tlsFrom(f.edge.httpsPort, '127.0.0.1', domain.hostname, f.caPem)];
      await expect(tlsFrom(f.edge.httpsPort, '127.0.0.1', domain.hostname, f.caPem)).rejects.toThrow(/socket disconnected|ECONNRESET/);
      expect(refusals).toEqual(['max_connections_per_client']);
      const other = await tlsFrom(f.edge.httpsPort, '127.0.0.2', domain.hostname, f.caPem);
      expect((await http1Over(other, domain.hostname)).status).toBe(200);
      // The held ones are served as usual, and a freed place is taken again.
      expect((await http1Over(held[0]!, domain.hostname)).status).toBe(200);
      await eventually('a place to be free again', async () => {
        try {
          const again = await tlsFrom(f.edge.httpsPort, '127.0.0.1', domain.hostname, f.caPem);
          return (await http1Over(again, domain.hostname)).status === 200;
        } catch {
          return false;
        }
      });
      for (const socket of held) socket.destroy();
    } finally {
      await f.close();
    }
  });

  it('behind a load balancer, counts by the PROXY protocol address', async () => {
    const f = await startEdgeFixture({ maxConnectionsPerClient: 1, proxyProtocol: { trustedCidrs: ['127.0.0.0/8'] } });
    try {
      const domain = await f.addDomain((await f.addApplication()).id);
      const held = await tlsWithHeader(f.edge.httpsPort, proxyV1('203.0.113.7'), domain.hostname, f.caPem, 'http/1.1');
      await expect(tlsWithHeader(f.edge.httpsPort, proxyV1('203.0.113.7', '192.0.2.1', 51_001), domain.hostname, f.caPem, 'http/1.1')).rejects.toThrow(/socket disconnected|ECONNRESET/);
      const other = await tlsWithHeader(f.edge.httpsPort, proxyV1('203.0.113.8', '192.0.2.1', 51_002), domain.hostname, f.caPem, 'http/1.1');
      expect((await http1Over(other, domain.hostname)).status).toBe(200);
      held.destroy();
    } finally {
      await f.close();
    }
  });
});

describe('EDGE_WEBSOCKET_IDLE_TIMEOUT', () => {
  let f: EdgeFixture;
  let domain: DomainRow;

  beforeAll(async () => {
    f = await startEdgeFixture({ websocketIdleTimeoutMs: 1_500 });
    domain = await f.addDomain((await f.addApplication()).id);
  });
  afterAll(() => f.close());

  /** An open WebSocket through the edge to the origin's echo, and when it closed (ms after opening; null while open). */
  async function openWebSocket(): Promise<{ ws: WebSocket; closedAfter: () => number | null }> {
    const ws = new WebSocket(`wss://127.0.0.1:${f.edge.httpsPort}/ws`, { ca: f.caPem, headers: { host: domain.hostname }, ...{ servername: domain.hostname } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => undefined);
    const opened = Date.now();
    let closed: number | null = null;
    ws.once('close', () => { closed = Date.now() - opened; });
    return { ws, closedAfter: () => closed };
  }

  it('closes a WebSocket quiet both ways for the idle timeout, and keeps one that talks', async () => {
    const quiet = await openWebSocket();
    const talking = await openWebSocket();
    const ticker = setInterval(() => talking.ws.send('tick'), 500);
    try {
      await eventually('the quiet WebSocket to be closed', () => quiet.closedAfter() !== null, { timeoutMs: 5_000 });
      expect(quiet.closedAfter()).toBeGreaterThanOrEqual(1_400);
      await sleep(1_000);
      expect(talking.closedAfter()).toBeNull();
      await eventually('the origin side of the quiet one to be closed too', () => f.origin.openWebSockets() === 1);
    } finally {
      clearInterval(ticker);
      talking.ws.terminate();
    }
  });
});

describe('WebSockets of a domain no longer served', () => {
  let f: EdgeFixture;

  beforeAll(async () => {
    f = await startEdgeFixture();
  });
  afterAll(() => f.close());

  async function webSocketTo(hostname: string): Promise<{ ws: WebSocket; closed: Promise<number> }> {
    const ws = new WebSocket(`wss://127.0.0.1:${f.edge.httpsPort}/ws`, { ca: f.caPem, headers: { host: hostname }, ...{ servername: hostname } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => undefined);
    return { ws, closed: new Promise((resolve) => ws.once('close', () => resolve(Date.now()))) };
  }

  it.each([
    ['leaves ready', async (appId: string, d: DomainRow) => void (await f.store.run((r) => r.domains.update(appId, d.id, { status: 'attention_required' })))],
    ['is deleted', async (appId: string, d: DomainRow) => void (await f.store.run((r) => r.domains.markDeleted(appId, d.id, new Date())))],
    ['belongs to an application being suspended', async (appId: string) => void (await f.store.run((r) => r.applications.update(appId, { status: 'suspended', updatedAt: new Date() })))],
  ])('closes every WebSocket of a domain that %s within 5 seconds, and no other', async (_what, change) => {
    const app = await f.addApplication();
    const d = await f.addDomain(app.id);
    const other = await f.addDomain((await f.addApplication()).id);
    const sockets = [await webSocketTo(d.hostname), await webSocketTo(d.hostname)];
    const bystander = await webSocketTo(other.hostname);
    const changed = Date.now();
    await change(app.id, d);
    const closedAt = await Promise.race([Promise.all(sockets.map((s) => s.closed)), sleep(7_000).then(() => null)]);
    expect(closedAt).not.toBeNull();
    expect(Math.max(...(closedAt as number[])) - changed).toBeLessThan(5_000);
    expect(bystander.ws.readyState).toBe(WebSocket.OPEN);
    bystander.ws.terminate();
  }, 20_000);
});
