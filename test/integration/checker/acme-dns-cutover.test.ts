// Certificates before cutover (DECISIONS §13), on real servers: BIND serves
// the delegation zone and takes TSIG-signed updates, Unbound resolves for
// Pebble and the checker, sending the customer's names to the test's DNS
// server and the zone to BIND, so `_acme-challenge.<hostname>` is followed
// through its CNAME as on the internet. A customer moves a live hostname whose
// CNAME still points at another provider: the certificate comes by DNS-01
// before the flip, and from the flip on every TLS handshake to the edge
// succeeds and the origin answers within 5 s. The renewal goes by DNS-01 with
// the edge closed; a wrong TSIG key is said by the check before any order.
import { X509Certificate } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import tls from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CertificateRow } from '@cds/data';
import { eventually } from '../../support/eventually';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import { check, EDGE_TARGET, registerDomain, waitForDomain, type DomainView } from './checker-stack';

const ZONE = 'acme.edge.test';
const OLD_PROVIDER = 'shops.old-provider.example.org';
/** Slow on purpose: only the edge's early check can make the domain ready within seconds of the flip. */
const SCHEDULE = '1m';

async function certificateOf(stack: AcmeStack, hostname: string): Promise<CertificateRow | null> {
  return stack.api.store.run((r) => r.certificates.find(hostname));
}

/** A live site elsewhere: the CNAME at the old provider; the ownership TXT and the delegation CNAME published; a check asked for. */
async function movingDomain(stack: AcmeStack, hostname: string): Promise<DomainView> {
  await stack.dns.setCname(hostname, OLD_PROVIDER);
  const domain = await registerDomain(stack.api, stack.app.key, hostname);
  expect(domain.dns_records.map((record) => record.purpose)).toEqual(['ownership', 'routing', 'certificate']);
  for (const record of domain.dns_records) {
    if (record.purpose === 'ownership') await stack.dns.setTxt(record.name, record.value);
    if (record.purpose === 'certificate') await stack.dns.setCname(record.name, record.value);
  }
  const asked = await stack.api.request('POST', `/v1/domains/${domain.id}/checks`, { token: stack.app.key });
  expect(asked.status).toBe(202);
  return domain;
}

interface Attempt {
  at: number;
  handshake: 'ok' | string;
  status: number | null;
}

/** One TLS connection to the edge named `hostname`, and one HTTP/1.1 GET over it. */
function attempt(stack: AcmeStack, hostname: string): Promise<Attempt> {
  const at = Date.now();
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: stack.edge.httpsPort, servername: hostname, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => {
      const subject = socket.getPeerX509Certificate();
      if (!subject?.checkHost(hostname)) {
        socket.destroy();
        resolve({ at, handshake: `a certificate not for ${hostname}`, status: null });
        return;
      }
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.on('end', () => resolve({ at, handshake: 'ok', status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0) }));
      socket.write(`GET /cutover HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('error', (err) => resolve({ at, handshake: err.message, status: null }));
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer in 5 s')));
  });
}

describe('with the challenge delegated', () => {
  let stack: AcmeStack;
  let domain: DomainView;

  beforeAll(async () => {
    stack = await startAcmeStack({ delegation: { zone: ZONE }, schedule: SCHEDULE });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('the certificate is stored while routing still fails; from the flip on, no handshake fails and the origin answers within 5 s', async () => {
    domain = await movingDomain(stack, 'shop.customer-moving.com');
    const before = await waitForDomain(stack.api, stack.app.key, domain.id, (d) => check(d, 'certificate').status === 'passing', 60_000)
      .catch((err: unknown) => { throw new Error(`${String(err)}\n${stack.checkerLog.slice(-10).join('\n')}`); });
    expect(before.status).toBe('pending_dns');
    expect(check(before, 'routing').status).not.toBe('passing');
    const stored = await certificateOf(stack, domain.hostname);
    expect(stored && new X509Certificate(stored.pemChain).checkHost(domain.hostname)).toBe(domain.hostname);

    await stack.dns.setCname(domain.hostname, EDGE_TARGET);
    // The flip is done once the resolver the checker asks answers it: Unbound, caching set to 0,
    // still answered the old CNAME to a check 5 ms after the change (as a production resolver
    // may for the record's TTL), and the edge asks again only 10 s later.
    const resolver = new Resolver();
    resolver.setServers([stack.unbound!.server]);
    await eventually('the resolver to answer the new CNAME', async () => (await resolver.resolveCname(domain.hostname).catch((): string[] => [])).includes(EDGE_TARGET));
    const attempts: Attempt[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const seen = await attempt(stack, domain.hostname);
      attempts.push(seen);
      if (seen.status === 200) break;
      await sleep(100);
    }
    const refused = attempts.filter((a) => a.handshake !== 'ok');
    const first = attempts[0]!;
    const served = attempts.find((a) => a.status === 200);
    console.log(`after the flip: ${attempts.length} requests, ${refused.length} refused handshakes, statuses ${[...new Set(attempts.map((a) => a.status))].join('/')}, first 200 after ${served ? served.at - first.at : 'never'} ms`);
    expect(refused).toEqual([]);
    expect(served).toBeDefined();
    expect(served!.at - first.at).toBeLessThanOrEqual(5000);
    expect(attempts.filter((a) => a.status !== 200).every((a) => a.status === 503)).toBe(true);
    expect(stack.origin.requests.some((r) => r.path === '/cutover')).toBe(true);
    expect((await waitForDomain(stack.api, stack.app.key, domain.id, () => true)).status).toBe('ready');
  });

  it('the renewal goes by DNS-01 too: a new certificate with the edge closed, so no HTTP reaches it', async () => {
    const first = await certificateOf(stack, domain.hostname);
    if (!first) throw new Error('no certificate');
    await stack.closeEdge();
    const marked = await stack.api.operator('POST', '/operator/v1/certificates/renew', { hostname: domain.hostname });
    expect(marked.status).toBe(202);
    await stack.api.request('POST', `/v1/domains/${domain.id}/checks`, { token: stack.app.key });
    let renewed: CertificateRow | null = null;
    await eventually('the certificate issued again', async () => {
      renewed = await certificateOf(stack, domain.hostname);
      return renewed !== null && new X509Certificate(renewed.pemChain).serialNumber !== new X509Certificate(first.pemChain).serialNumber;
    }, { timeoutMs: 60_000, explain: () => stack.checkerLog.slice(-10).join('\n') });
    expect(new X509Certificate(renewed!.pemChain).checkHost(domain.hostname)).toBe(domain.hostname);
    expect((await waitForDomain(stack.api, stack.app.key, domain.id, () => true)).status).toBe('ready');
  });
});

describe('with a wrong TSIG key', () => {
  let stack: AcmeStack;

  beforeAll(async () => {
    stack = await startAcmeStack({ delegation: { zone: ZONE, wrongKey: true }, schedule: SCHEDULE });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('the certificate check says the key was refused, and no order reaches the CA', async () => {
    const domain = await movingDomain(stack, 'shop.customer-wrong-key.com');
    const seen = await waitForDomain(stack.api, stack.app.key, domain.id, (d) => check(d, 'certificate').status === 'failing', 60_000);
    expect(check(seen, 'certificate')).toMatchObject({ error_code: 'certificate_issuance_failed', message: expect.stringContaining('refused the TSIG key') });
    expect(check(seen, 'certificate').message).toContain('BADSIG');
    expect(stack.proxy.orders()).toEqual([]);
    expect(await certificateOf(stack, domain.hostname)).toBeNull();
  });
});
