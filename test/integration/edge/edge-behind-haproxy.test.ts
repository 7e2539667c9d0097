// The edge behind a real load balancer: HAProxy in TCP mode sends PROXY
// protocol v2 to the TLS listener and v1 to the plain one. Clients connect to
// HAProxy from 127.0.0.2, so the address the edge is told differs from its peer
// (HAProxy, 127.0.0.1).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { DomainRow } from '@cds/data';
import { eventually } from '../../support/eventually';
import { freePort } from '../../support/free-port';
import { stopProcess } from '../../support/service-process';
import { startEdgeFixture, type EdgeFixture } from './edge-fixture';
import { http1Over, http2Over, type Answer } from './proxy-client';

const HAPROXY = '/usr/sbin/haproxy';
const CLIENT_ADDRESS = '127.0.0.2';

let f: EdgeFixture;
let domain: DomainRow;
let haproxy: ChildProcess;
let dir: string;
let log = '';
const ports = { tls: 0, plain: 0 };

function haproxyConfig(edge: { httpsPort: number; httpPort: number }): string {
  return `global
  maxconn 200
defaults
  mode tcp
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend tls_in
  bind 127.0.0.1:${ports.tls}
  default_backend edge_tls
backend edge_tls
  server edge 127.0.0.1:${edge.httpsPort} send-proxy-v2
frontend plain_in
  bind 127.0.0.1:${ports.plain}
  default_backend edge_plain
backend edge_plain
  server edge 127.0.0.1:${edge.httpPort} send-proxy
`;
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

beforeAll(async () => {
  if (!existsSync(HAPROXY)) throw new Error(`${HAPROXY} is missing: scripts/ensure-services.sh installs Debian's haproxy`);
  f = await startEdgeFixture({ proxyProtocol: { trustedCidrs: ['127.0.0.1/32'] } });
  domain = await f.addDomain((await f.addApplication()).id);
  ports.tls = await freePort();
  ports.plain = await freePort();
  dir = mkdtempSync(path.join(tmpdir(), 'cds-haproxy-'));
  writeFileSync(path.join(dir, 'haproxy.cfg'), haproxyConfig(f.edge));
  haproxy = spawn(HAPROXY, ['-db', '-f', path.join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] });
  haproxy.stdout?.on('data', (c: Buffer) => { log += c.toString(); });
  haproxy.stderr?.on('data', (c: Buffer) => { log += c.toString(); });
  await eventually('HAProxy to listen', async () => (await reachable(ports.tls)) && (await reachable(ports.plain)), { explain: () => log });
});

afterAll(async () => {
  if (haproxy) await stopProcess(haproxy, 5_000);
  if (dir) rmSync(dir, { recursive: true, force: true });
  await f?.close();
});

/** TLS to HAProxy's frontend from CLIENT_ADDRESS. */
function tlsThroughHaproxy(alpn: string): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const raw = net.connect({ host: '127.0.0.1', port: ports.tls, localAddress: CLIENT_ADDRESS });
    const socket = tls.connect({ socket: raw, servername: domain.hostname, ca: f.caPem, ALPNProtocols: [alpn] }, () => resolve(socket));
    socket.on('error', reject);
  });
}

function plainThroughHaproxy(pathname: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: ports.plain, localAddress: CLIENT_ADDRESS, path: pathname, headers: { host: domain.hostname }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('TLS listener, PROXY v2 from HAProxy: the origin gets the client address HAProxy saw, over HTTP/1.1 and HTTP/2', async () => {
  const h1 = await tlsThroughHaproxy('http/1.1');
  expect((await http1Over(h1, domain.hostname, '/via-haproxy/h1')).status).toBe(200);
  expect(f.origin.lastAt('/via-haproxy/h1').headers['x-forwarded-for']).toBe(CLIENT_ADDRESS);
  expect(f.origin.lastAt('/via-haproxy/h1').headers['x-real-ip']).toBe(CLIENT_ADDRESS);

  const h2 = await tlsThroughHaproxy('h2');
  expect(h2.alpnProtocol).toBe('h2');
  expect((await http2Over(h2, domain.hostname, '/via-haproxy/h2')).status).toBe(200);
  expect(f.origin.lastAt('/via-haproxy/h2').headers['x-forwarded-for']).toBe(CLIENT_ADDRESS);
});

it('plain listener, PROXY v1 from HAProxy: requests are answered (the redirect to HTTPS)', async () => {
  const answer = await plainThroughHaproxy('/somewhere');
  expect(answer.status).toBe(308);
  expect(answer.headers.location).toBe(`https://${domain.hostname}:${f.edge.httpsPort}/somewhere`);
});

it('a client that bypasses HAProxy (no header) is closed', async () => {
  const direct = new Promise<string>((resolve) => {
    const socket = net.connect(f.edge.httpPort, '127.0.0.1', () => socket.write(`GET / HTTP/1.1\r\nHost: ${domain.hostname}\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
  expect(await direct).toBe('');
});
