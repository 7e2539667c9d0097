// Apex domains and redirects end to end (DECISIONS §12), with EDGE_ADDRESSES
// set to the loopback addresses the real edge answers on: challtestsrv answers
// the apex's A and AAAA queries (add-a, add-aaaa), the checker's routing check
// reads them, Pebble validates HTTP-01 at those addresses, and the edge serves
// the certificate; a redirect_to is answered with 308 over HTTP/1.1 and HTTP/2.
import https from 'node:https';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { eventually } from '../../support/eventually';
import { h2Request, openH2 } from '../edge/h2-client';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import { check, publishRecords, registerDomain, waitForDomain, type DomainView } from './checker-stack';

const EDGE_ADDRESSES = ['127.0.0.1', '::1'];

let stack: AcmeStack;
let root: string;
let ipv6: net.Server | null = null;

/**
 * The edge's plain-HTTP port on ::1 as well, as a load balancer answering on
 * both addresses would: Pebble validates HTTP-01 over IPv6 when the name has an
 * AAAA answer, and the test edge listens on 127.0.0.1 alone.
 */
function forwardIpv6(port: number): Promise<net.Server> {
  const server = net.createServer((client) => {
    const edge = net.connect(port, '127.0.0.1');
    client.pipe(edge).pipe(client);
    const close = () => { client.destroy(); edge.destroy(); };
    client.on('error', close);
    edge.on('error', close);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '::1', () => resolve(server));
  });
}

beforeAll(async () => {
  stack = await startAcmeStack({ schedule: '500ms', pollIntervalMs: 200, env: { EDGE_ADDRESSES: EDGE_ADDRESSES.join(',') } });
  root = await stack.pebble.management('/roots/0');
  ipv6 = await forwardIpv6(stack.edge.httpPort);
});

afterAll(async () => {
  await new Promise<void>((resolve) => (ipv6 ? ipv6.close(() => resolve()) : resolve()));
  await stack?.stop();
});

const name = (label: string) => `${label}-${process.pid}.com`;

/** The ownership TXT, and the apex's A and AAAA answers set to `addresses`. */
async function publishApex(domain: DomainView, addresses: string[]): Promise<void> {
  // Addresses first: challtestsrv answers 127.0.0.1 for a name it was told nothing of, an
  // edge address, so a check between the TXT and the addresses would see the domain routed.
  await stack.dns.setAddresses(domain.hostname, addresses);
  await publishRecords(stack.dns, domain, { cname: false });
}

interface Reply {
  status: number;
  location: string | undefined;
  body: string;
  serial: string;
}

/** GET https://<hostname><path> through the edge's HTTPS listener over HTTP/1.1, trusting Pebble's root. */
function throughEdge(hostname: string, path = '/'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: stack.edge.httpsPort, servername: hostname, headers: { host: hostname }, ca: root, path, agent: false }, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body, serial }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('an apex whose A and AAAA answers are all edge addresses becomes ready with a Pebble certificate over HTTP-01 and is served', async () => {
  const domain = await registerDomain(stack.api, stack.app.key, name('apex'));
  expect(domain.dns_records.map((r) => [r.type, r.name, r.value])).toEqual([
    ['TXT', `_custom-domain-challenge.${domain.hostname}`, expect.any(String)],
    ['A', domain.hostname, '127.0.0.1'],
    ['AAAA', domain.hostname, '::1'],
  ]);
  await publishApex(domain, EDGE_ADDRESSES);
  const ready = await waitForDomain(stack.api, stack.app.key, domain.id, (d) => d.status === 'ready', 60_000).catch((err: unknown) => {
    throw new Error(`${String(err)}\nchecker: ${stack.checkerLog.join('\n')}`);
  });
  expect(ready.checks.map((c) => c.status)).toEqual(['passing', 'passing', 'passing', 'passing']);
  const stored = await stack.api.store.run((r) => r.certificates.find(domain.hostname));
  expect(stored?.issuer).toBe('acme');
  const served = await throughEdge(domain.hostname, '/');
  expect(served).toMatchObject({ status: 200, body: 'origin' });
});

test('one address outside EDGE_ADDRESSES fails the routing check with address_mismatch naming it', async () => {
  const domain = await registerDomain(stack.api, stack.app.key, name('mismatch'));
  await publishApex(domain, ['127.0.0.1', '192.0.2.55']);
  const seen = await waitForDomain(stack.api, stack.app.key, domain.id, (d) => check(d, 'routing').status === 'failing');
  expect(seen.status).toBe('pending_dns');
  expect(check(seen, 'routing')).toMatchObject({
    error_code: 'address_mismatch',
    message: `${domain.hostname} resolves to 192.0.2.55, an address outside this service's edge; expected only 127.0.0.1, ::1.`,
  });
  expect(check(seen, 'certificate').status).toBe('pending');
});

test('a CNAME at the apex, flattened by the resolver into edge addresses, passes', async () => {
  const domain = await registerDomain(stack.api, stack.app.key, name('flat'));
  await publishRecords(stack.dns, domain, { cname: false });
  // challtestsrv follows the CNAME when it answers the A query; the target answers 127.0.0.1 (its default) and no AAAA.
  await stack.dns.setCname(domain.hostname, `lb-${process.pid}.hosting.example.org`);
  const ready = await waitForDomain(stack.api, stack.app.key, domain.id, (d) => d.status === 'ready', 60_000);
  expect(check(ready, 'routing')).toMatchObject({ status: 'passing', error_code: null });
});

test('redirect_to: 308 to https://<target><path and query> over HTTP/1.1 and HTTP/2 once both are ready; 503 once the target is deleted; another application\'s domain is refused', async () => {
  const { api, app } = stack;
  const www = await registerDomain(api, app.key, `www.${name('redirect')}`);
  const created = await api.request<DomainView>('POST', '/v1/domains', { token: app.key, body: { hostname: name('redirect'), reference: 'ws-redirect', redirect_to: www.hostname } });
  expect(created.status).toBe(201);
  const apex = created.body;
  expect(apex.redirect_to).toBe(www.hostname);
  await publishRecords(stack.dns, www);
  await publishApex(apex, EDGE_ADDRESSES);
  await waitForDomain(api, app.key, www.id, (d) => d.status === 'ready', 60_000);
  await waitForDomain(api, app.key, apex.id, (d) => d.status === 'ready', 60_000);

  const expected = `https://${www.hostname}:${stack.edge.httpsPort}/shop/cart?item=7&ref=a%20b`;
  await eventually('the 308 once both are ready at the edge', async () => (await throughEdge(apex.hostname, '/shop/cart?item=7&ref=a%20b')).status === 308, { timeoutMs: 5_000, intervalMs: 100 });
  expect((await throughEdge(apex.hostname, '/shop/cart?item=7&ref=a%20b')).location).toBe(expected);
  const session = await openH2(stack.edge.httpsPort, apex.hostname, root);
  try {
    const h2 = await h2Request(session, apex.hostname, '/shop/cart?item=7&ref=a%20b');
    expect(h2.status).toBe(308);
    expect(h2.headers.location).toBe(expected);
  } finally {
    session.close();
  }
  expect((await throughEdge(www.hostname, '/')).status).toBe(200);

  const other = await api.createApplication();
  const foreign = await api.request('POST', '/v1/domains', { token: other.key, body: { hostname: `shop.${name('redirect')}`, reference: 'ws', redirect_to: www.hostname } });
  expect(foreign.status).toBe(422);
  expect(foreign.body).toMatchObject({ error: { code: 'validation_error', details: { field: 'redirect_to' } } });

  expect((await api.request('DELETE', `/v1/domains/${www.id}`, { token: app.key })).status).toBe(202);
  let last: Reply | null = null;
  await eventually('503 once the target is gone', async () => {
    last = await throughEdge(apex.hostname, '/');
    return last.status === 503;
  }, { timeoutMs: 10_000, intervalMs: 200, explain: () => JSON.stringify(last) });
  expect((last as Reply | null)?.body).toMatch(/redirect target was deleted/);
});
