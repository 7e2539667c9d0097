// End to end with a real ACME server: the API, a checker on RabbitMQ with the
// outbox relay, the real edge (Pebble validates HTTP-01 against its plain-HTTP
// listener, EDGE_HTTP_PORT, which answers from the database), pebble and
// challtestsrv. register -> records -> ready with a certificate chaining to
// Pebble's root, served by the edge -> TXT removed -> attention_required ->
// restored -> ready -> deleted.
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { ROUTING_KEYS } from '@cds/core';
import type { OutboxRow } from '@cds/data';
import type { Edge } from '@cds/edge-proxy';
import type { TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import type { CheckerDns } from './checker-dns';
import { check, publishRecords, registerDomain, waitForDomain, type DomainView } from './checker-stack';
import type { TestPebble } from './pebble';

let stack: AcmeStack;
let dns: CheckerDns;
let pebble: TestPebble;
let api: TestApi;
let edge: Edge;
let app: { slug: string; key: string };

const splitPem = (pem: string) => pem.split(/(?<=-----END CERTIFICATE-----)\s*/).filter((part) => part.includes('BEGIN CERTIFICATE'));

beforeAll(async () => {
  stack = await startAcmeStack({ rabbit: true, schedule: '500ms', pollIntervalMs: 200 });
  ({ dns, pebble, api, edge, app } = stack);
});

afterAll(() => stack?.stop());

const ofDomain = (id: string) => (row: OutboxRow) => (row.payload as { data?: { domain: { id: string } } }).data?.domain.id === id;

/** GET https://<hostname>/ through the edge's HTTPS listener, trusting only `root`. */
function throughEdge(hostname: string, root: string): Promise<{ status: number; body: string; serial: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: edge.httpsPort, servername: hostname, headers: { host: hostname }, ca: root, path: '/' }, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, serial }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the lifecycle over ACME: a Pebble certificate, then exactly ready, attention_required, recovered, deleted', async () => {
  const { key } = app;
  const domain = await registerDomain(api, key, `shop.acme-${process.pid}.com`);
  const registeredAt = Date.now();
  await publishRecords(dns, domain);
  const ready = await waitForDomain(api, key, domain.id, (d) => d.status === 'ready', 60_000);
  expect(Date.now() - registeredAt).toBeLessThan(60_000);
  expect(ready.checks.map((c) => c.status)).toEqual(['passing', 'passing', 'passing', 'passing']);

  const stored = await api.store.run((r) => r.certificates.find(domain.hostname));
  expect(stored?.issuer).toBe('acme');
  expect(stored?.keySealed).not.toContain('PRIVATE KEY');
  const chain = splitPem(stored?.pemChain ?? '').map((pem) => new X509Certificate(pem));
  const root = new X509Certificate(await pebble.management('/roots/0'));
  const leaf = chain[0] as X509Certificate;
  expect(leaf.checkHost(domain.hostname)).toBe(domain.hostname);
  expect(leaf.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  for (let i = 0; i + 1 < chain.length; i++) expect((chain[i] as X509Certificate).verify((chain[i + 1] as X509Certificate).publicKey)).toBe(true);
  expect((chain[chain.length - 1] as X509Certificate).verify(root.publicKey)).toBe(true);
  expect(await api.store.run(async (r) => (await r.settings.get('acme_account_key_sealed'))?.includes('PRIVATE KEY'))).toBe(false);
  // The edge serves that certificate for the hostname and forwards to the origin.
  const served = await throughEdge(domain.hostname, root.toString());
  expect(served).toEqual({ status: 200, body: 'origin', serial: leaf.serialNumber });

  const txt = domain.dns_records.find((r) => r.type === 'TXT');
  await dns.clearTxt(txt?.name ?? '');
  const attention = await waitForDomain(api, key, domain.id, (d) => d.status === 'attention_required');
  expect(check(attention, 'ownership').error_code).toBe('txt_record_not_found');
  await publishRecords(dns, domain);
  await waitForDomain(api, key, domain.id, (d) => d.status === 'ready');
  expect((await api.request('DELETE', `/v1/domains/${domain.id}`, { token: key })).status).toBe(202);

  let events: OutboxRow[] = [];
  await eventually('four events, all published', async () => {
    events = (await api.store.run((r) => r.outbox.all(ROUTING_KEYS.eventEmitted))).filter(ofDomain(domain.id));
    return events.length === 4 && events.every((e) => e.publishedAt !== null);
  }, { timeoutMs: 10_000, explain: () => `events: ${JSON.stringify(events)}` });
  expect(events.map((e) => (e.payload as { type: string }).type)).toEqual(['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted']);
  const resources = events.map((e) => (e.payload as { data: { domain: DomainView } }).data.domain);
  expect(resources.map((d) => d.status)).toEqual(['ready', 'attention_required', 'ready', 'deleting']);
  for (const resource of resources) expect(Object.keys(resource).sort()).toEqual(Object.keys(ready).sort());
});

test('caa_forbids_issuance: a CAA record that allows no CA stops the order', async () => {
  const domain = await registerDomain(api, app.key, `shop.acme-caa-${process.pid}.com`);
  // At the customer's apex: the hostname itself is a CNAME, whose CAA is the target's.
  const apex = domain.hostname.split('.').slice(1).join('.');
  await dns.addCaa(apex, ';');
  await publishRecords(dns, domain);
  const seen = await waitForDomain(api, app.key, domain.id, (d) => check(d, 'certificate').status === 'failing');
  expect(check(seen, 'certificate')).toMatchObject({ error_code: 'caa_forbids_issuance', message: expect.stringContaining(apex) });
});

test('certificate_issuance_failed: validation fails while no edge answers, and orders stop after 5 failures in the hour', async () => {
  await stack.closeEdge();
  const domain = await registerDomain(api, app.key, `shop.acme-fail-${process.pid}.com`);
  await publishRecords(dns, domain);
  const failed = await waitForDomain(api, app.key, domain.id, (d) => check(d, 'certificate').status === 'failing', 30_000);
  expect(check(failed, 'certificate').error_code).toBe('certificate_issuance_failed');
  const throttled = await waitForDomain(api, app.key, domain.id, (d) => (check(d, 'certificate').message ?? '').includes('failed validations'), 60_000);
  expect(check(throttled, 'certificate')).toMatchObject({ status: 'failing', error_code: 'certificate_issuance_failed', message: expect.stringContaining('5 failed validations') });
});
