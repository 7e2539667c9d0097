// EDGE_PROXY_PROTOCOL (DECISIONS §5): every connection on both listeners
// starts with a PROXY protocol v1 or v2 header from a trusted peer, and the
// address it carries is the client's; other connections are closed. Headers
// written by hand carry addresses that are not the loopback peer's.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DomainRow } from '@cds/data';
import { startEdge, type Edge, type EdgeObserver } from '@cds/edge-proxy';
import { silentLogger } from '@cds/logging';
import { DATA_KEY, DEPLOYMENT_KEY, startEdgeFixture, type EdgeFixture } from './edge-fixture';
import { closedBy, connectWithHeader, http1Over, http2Over, proxyV1, proxyV2, proxyV2Datagram, proxyV2Local, tlsWithHeader } from './proxy-client';

const HEADER_TIMEOUT_MS = 1_000;

let f: EdgeFixture;
let app: { id: string; slug: string };
let domain: DomainRow;
const refusals: string[] = [];
const observer: EdgeObserver = {
  answered: () => undefined,
  cacheLookup: () => undefined,
  limited: () => undefined,
  controlPlane: () => undefined,
  connectionRefused: (reason) => refusals.push(reason),
};

beforeAll(async () => {
  f = await startEdgeFixture({ observer, proxyProtocol: { trustedCidrs: ['127.0.0.0/8', '::1/128'], headerTimeoutMs: HEADER_TIMEOUT_MS } });
  app = await f.addApplication();
  domain = await f.addDomain(app.id);
});
afterAll(() => f.close());
beforeEach(() => {
  refusals.length = 0;
});

describe('TLS listener', () => {
  it.each([
    ['v1 TCP4', proxyV1('203.0.113.7'), '203.0.113.7', '203.0.113.7'],
    ['v1 TCP6', proxyV1('2001:db8::7', '2001:db8::1'), '2001:db8::7', '"[2001:db8::7]"'],
    ['v2 IPv4', proxyV2('203.0.113.8'), '203.0.113.8', '203.0.113.8'],
    ['v2 IPv6', proxyV2('2001:db8::8'), '2001:db8::8', '"[2001:db8::8]"'],
  ])('%s over HTTP/1.1: the origin gets the carried address as the client', async (name, header, address, forwardedFor) => {
    const path = `/h1/${name.replace(/ /g, '-')}`;
    const socket = await tlsWithHeader(f.edge.httpsPort, header, domain.hostname, f.caPem, 'http/1.1');
    expect((await http1Over(socket, domain.hostname, path)).status).toBe(200);
    const headers = f.origin.lastAt(path).headers;
    expect(headers['x-forwarded-for']).toBe(address);
    expect(headers['x-real-ip']).toBe(address);
    expect(headers.forwarded).toContain(`for=${forwardedFor};`);
  });

  it.each([
    ['v1', proxyV1('198.51.100.4')],
    ['v2', proxyV2('198.51.100.4')],
  ])('%s over HTTP/2: the origin gets the carried address as the client', async (version, header) => {
    const path = `/h2/${version}`;
    const socket = await tlsWithHeader(f.edge.httpsPort, header, domain.hostname, f.caPem, 'h2');
    expect(socket.alpnProtocol).toBe('h2');
    expect((await http2Over(socket, domain.hostname, path)).status).toBe(200);
    expect(f.origin.lastAt(path).headers['x-forwarded-for']).toBe('198.51.100.4');
    expect(f.origin.lastAt(path).headers['x-real-ip']).toBe('198.51.100.4');
  });

  it.each(['http/1.1', 'h2'])('%s: a header alone in its packet, the handshake a moment later', async (alpn) => {
    const path = `/later/${alpn}`;
    const socket = await tlsWithHeader(f.edge.httpsPort, proxyV1('203.0.113.10'), domain.hostname, f.caPem, alpn, 100);
    const answer = alpn === 'h2' ? await http2Over(socket, domain.hostname, path) : await http1Over(socket, domain.hostname, path);
    expect(answer.status).toBe(200);
    expect(f.origin.lastAt(path).headers['x-forwarded-for']).toBe('203.0.113.10');
  });

  it('counts what it forwards for the application, as without a balancer', async () => {
    const before = f.traffic.filter((t) => t.applicationId === app.id).length;
    const socket = await tlsWithHeader(f.edge.httpsPort, proxyV2('203.0.113.9'), domain.hostname, f.caPem, 'http/1.1');
    expect((await http1Over(socket, domain.hostname, '/bytes/100')).body).toHaveLength(100);
    expect(f.traffic.filter((t) => t.applicationId === app.id).length).toBe(before + 1);
  });

  it('a v2 LOCAL header (the balancer health-checking) leaves the peer as the client', async () => {
    const socket = await tlsWithHeader(f.edge.httpsPort, proxyV2Local(), domain.hostname, f.caPem, 'http/1.1');
    expect((await http1Over(socket, domain.hostname, '/local')).status).toBe(200);
    expect(f.origin.lastAt('/local').headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('closes a connection that starts with the TLS handshake instead of a header', async () => {
    await expect(tlsWithHeader(f.edge.httpsPort, null, domain.hostname, f.caPem, 'http/1.1')).rejects.toThrow(/socket disconnected|ECONNRESET/);
    expect(refusals).toEqual(['proxy_header']);
  });
});

describe('plain-HTTP listener', () => {
  it.each([
    ['v1', proxyV1('203.0.113.7', '192.0.2.1', 51_000, 80)],
    ['v2', proxyV2('2001:db8::7')],
  ])('%s: a request behind the header is answered (the redirect to HTTPS)', async (_version, header) => {
    const socket = await connectWithHeader(f.edge.httpPort, header);
    const answer = await http1Over(socket, domain.hostname, '/path');
    expect(answer.status).toBe(308);
    expect(answer.headers.location).toBe(`https://${domain.hostname}:${f.edge.httpsPort}/path`);
  });

  it('a header and its request in one packet, or the request in pieces after it, are read the same', async () => {
    const request = `GET /x HTTP/1.1\r\nHost: ${domain.hostname}\r\nConnection: close\r\n\r\n`;
    const together = await connectWithHeader(f.edge.httpPort, Buffer.concat([proxyV1('203.0.113.7'), Buffer.from(request)]));
    expect(await closedBy(together)).toMatch(/^HTTP\/1\.1 308 /);
    const apart = await connectWithHeader(f.edge.httpPort, proxyV2('203.0.113.7'));
    const answer = closedBy(apart);
    for (const piece of [request.slice(0, 9), request.slice(9, 30), request.slice(30)]) {
      await sleep(30);
      apart.write(piece);
    }
    expect(await answer).toMatch(/^HTTP\/1\.1 308 /);
  });

  it('closes a connection whose request comes without a header, answering nothing', async () => {
    const socket = await connectWithHeader(f.edge.httpPort, null);
    const answer = closedBy(socket);
    socket.write(`GET / HTTP/1.1\r\nHost: ${domain.hostname}\r\n\r\n`);
    expect(await answer).toBe('');
    expect(refusals).toEqual(['proxy_header']);
  });

  it.each(['203.0.113.7', '2001:db8::7'])('closes a connection whose v2 header is for a datagram (DGRAM) from %s, answering nothing', async (source) => {
    const socket = await connectWithHeader(f.edge.httpPort, Buffer.concat([proxyV2Datagram(source), Buffer.from(`GET / HTTP/1.1\r\nHost: ${domain.hostname}\r\nConnection: close\r\n\r\n`)]));
    expect(await closedBy(socket)).toBe('');
    expect(refusals).toEqual(['proxy_header']);
  });

  it('closes a connection whose header does not come within the time allowed', async () => {
    const started = Date.now();
    const socket = await connectWithHeader(f.edge.httpPort, Buffer.from('PROXY TCP4 203.0.113.7 '));
    expect(await closedBy(socket)).toBe('');
    expect(Date.now() - started).toBeGreaterThanOrEqual(HEADER_TIMEOUT_MS - 50);
    expect(refusals).toEqual(['proxy_header']);
  });
});

describe('a peer outside EDGE_PROXY_PROTOCOL_CIDRS', () => {
  let strict: Edge;

  beforeAll(async () => {
    strict = await startEdge({
      store: f.store, logger: silentLogger, traffic: { record: () => undefined }, observer,
      httpsPort: 0, httpPort: 0, bindAddress: '127.0.0.1', dataEncryptionKey: DATA_KEY, deploymentKey: DEPLOYMENT_KEY, originTimeoutMs: 1_500,
      proxyProtocol: { trustedCidrs: ['10.0.0.0/8'] },
    });
  });
  afterAll(() => strict.close(1_000));

  it('is closed on both listeners, a valid header or not', async () => {
    const tlsAttempt = tlsWithHeader(strict.httpsPort, proxyV2('203.0.113.7'), domain.hostname, f.caPem, 'http/1.1');
    await expect(tlsAttempt).rejects.toThrow(/socket disconnected|ECONNRESET|EPIPE/);
    const plain = await connectWithHeader(strict.httpPort, proxyV1('203.0.113.7'));
    const answer = closedBy(plain);
    plain.write(`GET / HTTP/1.1\r\nHost: ${domain.hostname}\r\n\r\n`);
    expect(await answer).toBe('');
    expect(refusals).toEqual(['untrusted_peer', 'untrusted_peer']);
  });
});
