// The edge over HTTP/2 (ALPN h2), with Node's http2 client and with curl:
// every rule of DECISIONS §5 as over HTTP/1.1 (SNI = :authority, pages,
// limits shared by two edges, the assertion, forwarding headers, counting),
// idle connections closed as over HTTP/1.1, and the 10-second limit on a TLS
// handshake.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { jwtVerify } from 'jose';
import { ROUTING_KEYS } from '@cds/core';
import { startEdge, type Edge } from '@cds/edge-proxy';
import { silentLogger } from '@cds/logging';
import { eventually } from '../../support/eventually';
import { DATA_KEY, DEPLOYMENT_KEY, startEdgeFixture, type EdgeFixture } from './edge-fixture';
import { h2Get, h2Request, openH2 } from './h2-client';

let f: EdgeFixture;
let app: { id: string; slug: string };
let work: string;
let caFile: string;

beforeAll(async () => {
  f = await startEdgeFixture();
  app = await f.addApplication();
  work = mkdtempSync(path.join(tmpdir(), 'edge-h2-'));
  caFile = path.join(work, 'ca.pem');
  writeFileSync(caFile, f.caPem);
});
afterAll(async () => {
  await f.close();
  rmSync(work, { recursive: true, force: true });
});

/** curl over HTTP/2 (`--http2`, ALPN) to the edge as `hostname`: HTTP version, status and body. */
async function curl(hostname: string, urlPath: string, args: string[] = []): Promise<{ version: string; status: number; body: string }> {
  const port = f.edge.httpsPort;
  const { stdout } = await promisify(execFile)('curl', [
    '--http2', '-sS', '--max-time', '10', '--path-as-is', '--cacert', caFile, '--resolve', `${hostname}:${port}:127.0.0.1`,
    '-w', '\n%{http_version} %{http_code}', ...args, `https://${hostname}:${port}${urlPath}`,
  ]);
  const cut = stdout.lastIndexOf('\n');
  const [version = '', status = '0'] = stdout.slice(cut + 1).split(' ');
  return { version, status: Number(status), body: stdout.slice(0, cut) };
}

const verifyAssertion = (token: string) =>
  jwtVerify(token, new TextEncoder().encode(DEPLOYMENT_KEY.secret), { issuer: 'custom-domain-service', audience: app.slug, algorithms: ['HS256'] });

describe('HTTP/2 with Node’s client', () => {
  it('negotiates h2 by ALPN and serves a ready domain, the origin verifying the assertion', async () => {
    const d = await f.addDomain(app.id);
    const session = await openH2(f.edge.httpsPort, d.hostname, f.caPem);
    expect(session.alpnProtocol).toBe('h2');
    const before = f.origin.requests.length;
    const answer = await h2Request(session, d.hostname, '/path?q=1', {
      headers: { 'x-forwarded-for': '6.6.6.6', forwarded: 'for=6.6.6.6', 'x-custom-domain-assertion': 'spoofed', cookie: ['a=1', 'b=2'], 'x-end': 'keep me' },
    });
    session.close();
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('origin /path?q=1');
    expect(answer.headers['x-origin']).toBe('yes');
    // The origin's connection headers never reach an HTTP/2 client.
    expect(answer.headers['keep-alive']).toBeUndefined();
    const seen = f.origin.requests[before];
    expect(seen?.url).toBe('/path?q=1');
    expect(seen?.headers.host).toBe(d.hostname);
    expect(seen?.rawHeaders.filter((name, i) => i % 2 === 0 && name.startsWith(':'))).toEqual([]);
    expect(seen?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen?.headers['x-real-ip']).toBe('127.0.0.1');
    expect(seen?.headers['x-forwarded-proto']).toBe('https');
    expect(seen?.headers['x-forwarded-host']).toBe(d.hostname);
    expect(seen?.headers.forwarded).toBe(`for=127.0.0.1;host="${d.hostname}";proto=https`);
    expect(seen?.headers.cookie).toBe('a=1; b=2');
    expect(seen?.headers['x-end']).toBe('keep me');
    const verified = await verifyAssertion(seen?.headers['x-custom-domain-assertion'] as string);
    expect(verified.payload).toMatchObject({ sub: d.id, hostname: d.hostname, reference: d.reference });
  });

  it('streams request bodies without Content-Length and large answers, and counts the bytes', async () => {
    const d = await f.addDomain(app.id);
    const session = await openH2(f.edge.httpsPort, d.hostname, f.caPem);
    const before = f.origin.requests.length;
    const body = 'x'.repeat(200_000);
    expect((await h2Request(session, d.hostname, '/upload', { method: 'POST', body })).status).toBe(200);
    expect(f.origin.requests[before]?.body).toBe(body);
    const counted = f.traffic.length;
    const big = await h2Request(session, d.hostname, '/bytes/300000');
    session.close();
    expect(big.status).toBe(200);
    expect(big.body).toHaveLength(300_000);
    expect(f.traffic.slice(counted)).toEqual([{ applicationId: app.id, bytes: 300_000 }]);
  });

  it('never hands the origin an upload cut short by the client\'s connection closing as a whole body', async () => {
    const d = await f.addDomain(app.id);
    const session = await openH2(f.edge.httpsPort, d.hostname, f.caPem);
    const stream = session.request({ ':method': 'POST', ':path': '/cut-upload', ':authority': d.hostname }, { endStream: false });
    stream.on('error', () => undefined);
    stream.write('x'.repeat(1_000));
    await eventually('the upload under way at the origin', async () => f.origin.inFlight() > 0, { timeoutMs: 2_000, intervalMs: 20 });
    // Node's client would end the body before a reset of the stream alone: the connection goes instead.
    session.destroy();
    await eventually('the origin request ended', async () => f.origin.inFlight() === 0, { timeoutMs: 2_000, intervalMs: 20 });
    expect(f.origin.requests.filter((r) => r.url === '/cut-upload')).toEqual([]);
  });

  it('answers 421 when :authority, or a Host beside it, names another site than SNI', async () => {
    const a = await f.addDomain(app.id);
    const b = await f.addDomain(app.id);
    const session = await openH2(f.edge.httpsPort, a.hostname, f.caPem);
    const wrong = await h2Request(session, b.hostname);
    expect(wrong.status).toBe(421);
    expect(wrong.body).toMatch(/does not match/);
    expect((await h2Request(session, a.hostname, '/', { headers: { host: b.hostname } })).status).toBe(421);
    expect((await h2Request(session, `${a.hostname.toUpperCase()}:8443`)).status).toBe(200);
    session.close();
  });

  it('answers 503 with Retry-After while pending_dns or attention_required, 404 once the domain is deleted, 504 for a slow origin', async () => {
    const pending = await f.addDomain(app.id, { status: 'pending_dns' });
    const p = await h2Get(f.edge.httpsPort, pending.hostname, f.caPem);
    expect(p.status).toBe(503);
    expect(p.headers['retry-after']).toBe('60');
    expect(p.body).toMatch(/not ready/);
    const attention = await f.addDomain(app.id, { status: 'attention_required' });
    const a = await h2Get(f.edge.httpsPort, attention.hostname, f.caPem);
    expect(a.status).toBe(503);
    expect(a.body).toMatch(/check is failing/);

    const d = await f.addDomain(app.id);
    const session = await openH2(f.edge.httpsPort, d.hostname, f.caPem);
    expect((await h2Request(session, d.hostname)).status).toBe(200);
    expect((await h2Request(session, d.hostname, '/slow/3000')).status).toBe(504);
    // The session's handshake is behind it: the deleted name now meets the route table alone.
    await f.store.run((r) => r.domains.markDeleted(app.id, d.id, new Date()));
    await f.bus.publish(ROUTING_KEYS.domainChanged, { domain_id: d.id, hostname: d.hostname, application_id: app.id, change: 'deleted' });
    let gone = await h2Request(session, d.hostname);
    await eventually('404 on the open session', async () => (gone = await h2Request(session, d.hostname)).status === 404, { timeoutMs: 1_000, intervalMs: 50 });
    session.close();
    expect(gone.body).toMatch(/Unknown hostname/);
  });

  it('shares proxied_requests_per_second between two edges: of 30 requests over HTTP/2 exactly 10 pass, the rest get 429 with Retry-After', async () => {
    const limited = await f.addApplication({ proxied_requests_per_second: 10, proxied_requests_per_minute: 100_000 });
    const d = await f.addDomain(limited.id);
    const second: Edge = await startEdge({
      store: await f.db.openAnother(), logger: silentLogger, traffic: { record: () => undefined }, httpsPort: 0, httpPort: 0, bindAddress: '127.0.0.1',
      dataEncryptionKey: DATA_KEY, deploymentKey: DEPLOYMENT_KEY, originTimeoutMs: 1_500, limiterNow: f.clock.epochMs,
    });
    try {
      const sessions = await Promise.all([f.edge.httpsPort, second.httpsPort].map((port) => openH2(port, d.hostname, f.caPem)));
      // Caches warm on both edges, then a fresh second for the limits.
      for (const session of sessions) expect((await h2Request(session, d.hostname, '/warm')).status).toBe(200);
      f.clock.startWindow(1);
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => h2Request(sessions[i % 2]!, d.hostname, '/burst').then((answer) => ({ edge: i % 2, answer }))));
      for (const session of sessions) session.close();
      expect(answers.filter((a) => a.answer.status === 200)).toHaveLength(10);
      const refused = answers.filter((a) => a.answer.status === 429);
      expect(refused).toHaveLength(20);
      expect(refused.every((a) => a.answer.headers['retry-after'] === '1')).toBe(true);
      for (const edge of [0, 1]) expect(refused.some((a) => a.edge === edge)).toBe(true);
    } finally {
      await second.close(1_000);
    }
  });
});

describe('HTTP/2 with curl', () => {
  it('negotiates HTTP/2 and is served, with the assertion at the origin', async () => {
    const d = await f.addDomain(app.id);
    const before = f.origin.requests.length;
    const answer = await curl(d.hostname, '/curl?x=1');
    expect(answer).toEqual({ version: '2', status: 200, body: 'origin /curl?x=1' });
    const seen = f.origin.requests[before];
    expect(seen?.headers.host).toBe(`${d.hostname}:${f.edge.httpsPort}`);
    await expect(verifyAssertion(seen?.headers['x-custom-domain-assertion'] as string)).resolves.toBeTruthy();
  });

  it('answers 421 for another :authority, 503 for a pending domain and 400 for a climbing path', async () => {
    const a = await f.addDomain(app.id);
    const b = await f.addDomain(app.id);
    expect(await curl(a.hostname, '/', ['-H', `Host: ${b.hostname}`])).toMatchObject({ version: '2', status: 421 });
    const pending = await f.addDomain(app.id, { status: 'pending_dns' });
    expect(await curl(pending.hostname, '/')).toMatchObject({ version: '2', status: 503 });
    expect(await curl(a.hostname, '/a/%2e%2e/%2E%2E/etc/passwd')).toMatchObject({ version: '2', status: 400 });
  });
});

describe('idle connections', () => {
  it('asks an idle HTTP/2 connection to close (GOAWAY) after the keep-alive time of HTTP/1.1, 5 s', async () => {
    const d = await f.addDomain(app.id);
    const session = await openH2(f.edge.httpsPort, d.hostname, f.caPem);
    expect((await h2Request(session, d.hostname)).status).toBe(200);
    const idleSince = Date.now();
    await new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const seconds = (Date.now() - idleSince) / 1000;
    session.destroy();
    expect(seconds).toBeGreaterThanOrEqual(4.5);
    expect(seconds).toBeLessThanOrEqual(8);
  });
});

describe('TLS handshake', () => {
  it('closes a connection that never starts its TLS handshake after about 10 s', async () => {
    const socket = net.connect(f.edge.httpsPort, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const opened = Date.now();
    await new Promise<void>((resolve) => socket.once('close', () => resolve()).on('error', () => undefined));
    const seconds = (Date.now() - opened) / 1000;
    expect(seconds).toBeGreaterThanOrEqual(9);
    expect(seconds).toBeLessThanOrEqual(13);
  });
});
