// Renewal over ACME against a real Pebble behind a proxy that offers ACME
// Renewal Information (RFC 9773): a window that has begun renews a
// certificate years before expiry, one in the future does not; a certificate
// within 30 days of expiry is replaced while the domain stays ready; a renewal
// that fails leaves the still valid certificate passing; a renewal window
// that gets no answer costs one check the ARI timeout. A renewal order names
// the certificate it replaces (RFC 9773 `replaces`), and is placed again
// without it when the CA refuses the link. HTTP-01 is answered by the real
// edge on EDGE_HTTP_PORT.
import { X509Certificate } from 'node:crypto';
import * as acme from 'acme-client';
import { ACME_REQUEST_TIMEOUT_MS, ACME_SETTINGS, ARI_REQUEST_TIMEOUT_MS, ariCertId } from '@cds/checker';
import { decryptSecret, renewalAfter, renewalDue, ROUTING_KEYS } from '@cds/core';
import type { CertificateRow, OutboxRow } from '@cds/data';
import type { TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { orderNames, type AcmeProxy, type AriResponder, type OrderPayload } from './acme-proxy';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import type { CheckerDns } from './checker-dns';
import { check, publishRecords, registerDomain, waitForDomain, type DomainView } from './checker-stack';
import { expiringCertificate } from './expiring-certificate';

const DAY_MS = 86_400_000;

let stack: AcmeStack;
let dns: CheckerDns;
let ari: AriResponder;
let proxy: AcmeProxy;
let api: TestApi;
let app: { slug: string; key: string };

beforeAll(async () => {
  stack = await startAcmeStack({ ari: true });
  ({ dns, proxy, api, app } = stack);
  ari = stack.ari as AriResponder;
});

afterAll(() => stack?.stop());

/** What the checker and the CA did for `domain`: orders, requests not answered, the checker's warnings, the certificate check. */
async function explainOrders(domain: DomainView): Promise<string> {
  const seen = await waitForDomain(api, app.key, domain.id, () => true);
  const current = await certificateOf(domain.hostname);
  const lastOrder = proxy.forwarded.findLastIndex((f) => f.payload !== null && Array.isArray(f.payload.identifiers)
    && orderNames(f.payload as OrderPayload).includes(domain.hostname));
  return [
    `orders for ${domain.hostname}: ${JSON.stringify(ordersFor(domain.hostname))}`,
    `the certificate now: serial ${leafOf(current.pemChain).serialNumber}, issuer ${leafOf(current.pemChain).issuer}, created ${current.createdAt.toISOString()}`,
    `requests to the CA from the last order on:\n${proxy.forwarded.slice(Math.max(lastOrder, 0)).slice(0, 30)
      .map((f) => `${f.method} ${f.path} ${JSON.stringify(f.payload)} -> ${f.answer ? `${f.answer.status} ${f.answer.body.replace(/\s+/g, ' ').slice(0, 400)}` : 'no answer yet'}`).join('\n')}`,
    `requests to the CA not answered: ${JSON.stringify(proxy.unanswered())}`,
    `certificate check: ${JSON.stringify(check(seen, 'certificate'))}`,
    `checker warnings and errors:\n${stack.checkerLog.slice(-20).join('\n')}`,
  ].join('\n');
}

async function readyDomain(label: string): Promise<DomainView> {
  const domain = await registerDomain(api, app.key, `${label}.renewal-${process.pid}.com`);
  await publishRecords(dns, domain);
  return waitForDomain(api, app.key, domain.id, (d) => d.status === 'ready', 60_000);
}

async function certificateOf(hostname: string): Promise<CertificateRow> {
  const row = await api.store.run((r) => r.certificates.find(hostname));
  if (!row) throw new Error(`no certificate for ${hostname}`);
  return row;
}

/** The leaf of a chain (X509Certificate reads the first certificate of the PEM). */
const leafOf = (pemChain: string) => new X509Certificate(pemChain);
const ariIdOf = (row: CertificateRow) => ariCertId(row.pemChain) as string;
const timesAsked = (id: string) => ari.asked.filter((asked) => asked === id).length;
const ordersFor = (hostname: string) => proxy.orders().filter((order) => orderNames(order).includes(hostname));
const eventsOf = async (domainId: string) => (await api.store.run((r) => r.outbox.all(ROUTING_KEYS.eventEmitted)))
  .filter((row: OutboxRow) => (row.payload as { data?: { domain: { id: string } } }).data?.domain.id === domainId)
  .map((row) => (row.payload as { type: string }).type);

/**
 * Deactivates the authorizations Pebble gave the orders for `hostname`.
 * Pebble 2.4.0 reuses a valid authorization for about one order in a hundred
 * even with PEBBLE_AUTHZREUSE=0 (it makes a new one only when
 * `rand.Intn(100) > 0`), and such an order is issued without validation.
 */
async function deactivateAuthorizations(hostname: string): Promise<number> {
  const sealed = await api.store.run((r) => r.settings.get(ACME_SETTINGS.accountKeySealed));
  const client = new acme.Client({ directoryUrl: proxy.directoryUrl, accountKey: decryptSecret(sealed as string, api.config.dataEncryptionKey, { purpose: 'setting', id: ACME_SETTINGS.accountKeySealed }) });
  await client.createAccount({ onlyReturnExisting: true });
  const urls = proxy.forwarded
    .filter((f) => f.payload !== null && Array.isArray(f.payload.identifiers) && orderNames(f.payload as OrderPayload).includes(hostname) && f.answer?.status === 201)
    .flatMap((f) => (JSON.parse((f.answer as { body: string }).body) as { authorizations: string[] }).authorizations);
  for (const url of urls) await client.deactivateAuthorization({ url } as acme.Authorization);
  return urls.length;
}

test('ACME Renewal Information: a window that has begun renews years before expiry; a window in the future does not', async () => {
  const [early, later] = await Promise.all([readyDomain('ari-early'), readyDomain('ari-later')]);
  const first = await certificateOf(early.hostname);
  const kept = await certificateOf(later.hostname);
  expect(first.notAfter.getTime() - Date.now()).toBeGreaterThan(365 * DAY_MS);

  // Both windows start a month from now: the checker asks again after each Retry-After and leaves both alone.
  await eventually('the checker asked twice about each certificate', () => timesAsked(ariIdOf(first)) >= 2 && timesAsked(ariIdOf(kept)) >= 2, { timeoutMs: 30_000 });
  expect((await certificateOf(early.hostname)).pemChain).toBe(first.pemChain);
  expect(ordersFor(early.hostname)).toHaveLength(1);

  ari.windows.set(ariIdOf(first), { start: new Date(Date.now() - 3600_000), end: new Date(Date.now() + DAY_MS) });
  let renewed = first;
  await eventually('the certificate whose window began is replaced', async () => {
    renewed = await certificateOf(early.hostname);
    return renewed.pemChain !== first.pemChain;
  }, { timeoutMs: 30_000 });
  expect(leafOf(renewed.pemChain).serialNumber).not.toBe(leafOf(first.pemChain).serialNumber);
  expect(leafOf(renewed.pemChain).checkHost(early.hostname)).toBe(early.hostname);
  expect(renewed.notAfter.getTime()).toBeGreaterThan(first.notAfter.getTime());
  // Renewed long before two thirds of its lifetime, when renewal would otherwise begin.
  expect(renewalAfter(first, null).getTime() - Date.now()).toBeGreaterThan(300 * DAY_MS);
  expect(ordersFor(early.hostname)).toHaveLength(2);
  // The first order replaced nothing; the renewal names the certificate it replaces.
  expect(ordersFor(early.hostname).map((order) => order.replaces)).toEqual([undefined, ariIdOf(first)]);

  // The other certificate is asked about again, and kept; the new one's window is in the future, so it stays too.
  const askedLater = timesAsked(ariIdOf(kept));
  await eventually('both certificates were asked about again', () => timesAsked(ariIdOf(kept)) >= askedLater + 2 && timesAsked(ariIdOf(renewed)) >= 2, { timeoutMs: 30_000 });
  expect((await certificateOf(later.hostname)).pemChain).toBe(kept.pemChain);
  expect((await certificateOf(early.hostname)).pemChain).toBe(renewed.pemChain);
  expect(ordersFor(later.hostname)).toHaveLength(1);
  expect(ordersFor(early.hostname)).toHaveLength(2);

  const seen = await waitForDomain(api, app.key, early.id, () => true);
  expect(seen.status).toBe('ready');
  expect(check(seen, 'certificate')).toMatchObject({ status: 'passing', error_code: null });
  expect(await eventsOf(early.id)).toEqual(['domain.ready']);
});

test('a certificate past two thirds of its lifetime is replaced while the domain stays ready, without an attention event', async () => {
  const domain = await readyDomain('expiring');
  const expiring = await expiringCertificate(domain, 10, api.config.dataEncryptionKey);
  // A certificate this CA did not issue has no renewal window there: the two-thirds rule decides.
  ari.unknown.add(ariIdOf(expiring));
  expect(renewalDue(expiring, new Date(), null)).toBe(true);
  // A certificate this CA did not issue: like Let's Encrypt, it refuses an order claiming to replace it.
  proxy.refuseReplaces.add(ariIdOf(expiring));
  await api.store.run((r) => r.certificates.save(expiring));

  let replaced = expiring;
  const seen: string[] = [];
  await eventually('the expiring certificate is replaced', async () => {
    const now = await waitForDomain(api, app.key, domain.id, () => true);
    seen.push(`${now.status}/${check(now, 'certificate').status}`);
    replaced = await certificateOf(domain.hostname);
    return replaced.pemChain !== expiring.pemChain;
  }, { timeoutMs: 30_000 });
  expect(new Set(seen)).toEqual(new Set(['ready/passing']));
  const leaf = leafOf(replaced.pemChain);
  expect(leaf.serialNumber).not.toBe(leafOf(expiring.pemChain).serialNumber);
  expect(leaf.issuer).toContain('Pebble');
  expect(leaf.checkHost(domain.hostname)).toBe(domain.hostname);
  expect(renewalDue(replaced, new Date(), null)).toBe(false);
  expect(replaced.keySealed).not.toBe(expiring.keySealed);
  // The order naming the expiring certificate was refused, and placed again without `replaces`.
  expect(proxy.refusedOrders.filter((order) => order.replaces === ariIdOf(expiring))).toHaveLength(1);
  expect(ordersFor(domain.hostname).map((order) => order.replaces)).toEqual([undefined, undefined]);

  const after = await waitForDomain(api, app.key, domain.id, () => true);
  expect(after.status).toBe('ready');
  expect(after.checks.map((c) => c.status)).toEqual(['passing', 'passing', 'passing', 'passing']);
  expect(await eventsOf(domain.id)).toEqual(['domain.ready']);
  const changes = (await api.store.run((r) => r.outbox.all(ROUTING_KEYS.domainChanged)))
    .map((row) => row.payload as { domain_id: string; change: string })
    .filter((payload) => payload.domain_id === domain.id && payload.change === 'certificate');
  expect(changes).toHaveLength(2);
});

test('a renewal window that gets no answer costs one check the ARI timeout; the next try waits, and the checks go on meanwhile', async () => {
  const domain = await readyDomain('ari-stalled');
  const id = ariIdOf(await certificateOf(domain.hostname));
  const observed = async () => check(await waitForDomain(api, app.key, domain.id, () => true), 'certificate');
  await eventually('the checker asked about the certificate', () => timesAsked(id) >= 1, { timeoutMs: 30_000 });
  ari.stalled.add(id);
  const asked = timesAsked(id);
  await eventually('the checker asked again and got no answer', () => timesAsked(id) > asked, { timeoutMs: 10_000 });
  const stalledAt = Date.now();

  // That check waits for the timeout, then judges the certificate by its expiry alone.
  let seen = await observed();
  await eventually('the domain was checked after the stalled request timed out', async () => {
    seen = await observed();
    return Date.parse(seen.observed_at ?? '') > stalledAt;
  }, { timeoutMs: ARI_REQUEST_TIMEOUT_MS + 10_000 });
  expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(ARI_REQUEST_TIMEOUT_MS - 1000);
  expect(seen).toMatchObject({ status: 'passing', error_code: null });
  expect(stack.checkerLog.filter((line) => line.includes('renewal window could not be fetched') && line.includes(id))).toHaveLength(1);

  // The next checks do not ask again (the retry waits ARI_RETRY_AFTER_FAILURE_MS) and do not wait.
  const checkedAt = Date.parse(seen.observed_at ?? '');
  const later: string[] = [];
  await eventually('the domain was checked twice more', async () => {
    const now = (await observed()).observed_at ?? '';
    if (Date.parse(now) > checkedAt && !later.includes(now)) later.push(now);
    return later.length >= 2;
  }, { timeoutMs: 5_000 });
  expect(timesAsked(id)).toBe(asked + 1);
  expect((await waitForDomain(api, app.key, domain.id, () => true)).status).toBe('ready');
  expect(ordersFor(domain.hostname)).toHaveLength(1);
  ari.stalled.delete(id);
});

test('a renewal that fails leaves the still valid certificate passing and the domain ready', async () => {
  const domain = await readyDomain('failed-renewal');
  // The renewal must be validated, and nothing answers HTTP-01 any more: Pebble's validation fails.
  expect(await deactivateAuthorizations(domain.hostname)).toBe(1);
  await stack.closeEdge();
  const expiring = await expiringCertificate(domain, 10, api.config.dataEncryptionKey);
  // A certificate this CA did not issue has no renewal window there: the two-thirds rule decides.
  ari.unknown.add(ariIdOf(expiring));
  await api.store.run((r) => r.certificates.save(expiring));

  // Failed orders counted in the clock hour now or the one before (the failure may fall just before a boundary).
  const failedValidations = async () => {
    const [now, hourBefore] = [new Date(), new Date(Date.now() - 3600_000)];
    const counts = await api.store.run(async (r) => [await r.rateCounters.peek(`acme:failed:${domain.hostname}`, 3600, now), await r.rateCounters.peek(`acme:failed:${domain.hostname}`, 3600, hourBefore)]);
    return counts.reduce((sum, c) => sum + c.count, 0);
  };
  // Normally a second or two; a request to the CA that gets no answer costs up to its timeout.
  const waitedFrom = Date.now();
  await eventually('a renewal order failed', async () => (await failedValidations()) >= 1, { timeoutMs: ACME_REQUEST_TIMEOUT_MS + 30_000, explain: () => explainOrders(domain) });
  if (Date.now() - waitedFrom > 10_000) console.warn(`the failed renewal took ${Date.now() - waitedFrom} ms\n${await explainOrders(domain)}`);
  const failedAt = new Date().toISOString();
  expect(ordersFor(domain.hostname).length).toBeGreaterThanOrEqual(2);
  expect(stack.checkerLog.some((line) => line.includes(`The ACME order for ${domain.hostname} failed`) && line.includes('connection refused'))).toBe(true);

  const later = await waitForDomain(api, app.key, domain.id, (d) => (check(d, 'certificate').observed_at ?? '') > failedAt);
  // Not a failure of the check (DECISIONS §11): it says that the renewal failed, why, and when it is tried again.
  expect(check(later, 'certificate')).toMatchObject({ status: 'passing', error_code: null });
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  expect(check(later, 'certificate').message).toMatch(new RegExp(`^The renewal failed at \\S+Z \\(.+\\); the certificate stays valid until ${escape(expiring.notAfter.toISOString())} and the renewal is tried again at \\S+Z\\.$`));
  expect(later.status).toBe('ready');
  expect((await certificateOf(domain.hostname)).pemChain).toBe(expiring.pemChain);
  expect(await eventsOf(domain.id)).toEqual(['domain.ready']);
});
