// Limits on ACME ordering, against a real Pebble behind a proxy that records
// what reaches it: with a cap of one order per hour, the second hostname's
// order is refused before anything is sent to the CA; a second checker orders
// under the account the shared key already has; two first orders at once
// register a new account once; a CA that stops answering fails the order
// after the request timeout.
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { ACME_REQUEST_TIMEOUT_MS, ACME_SETTINGS, AcmeIssuer, IssuanceError } from '@cds/checker';
import { encryptSecret } from '@cds/core';
import { roomInWindow, type TestApi } from '../../support/api-harness';
import { orderNames, type AcmeProxy } from './acme-proxy';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import type { CheckerDns } from './checker-dns';
import { check, publishRecords, registerDomain, waitForDomain } from './checker-stack';

let stack: AcmeStack;
let dns: CheckerDns;
let proxy: AcmeProxy;
let api: TestApi;
let app: { slug: string; key: string };

/** An issuer against `directoryUrl` as a checker makes it: the sealed account key in `started`'s database, a client of its own. */
function issuerFor(started: TestApi, directoryUrl: string, caBundle: string, dnsServer: string, newOrdersPerHour?: number): AcmeIssuer {
  return new AcmeIssuer({
    store: started.store, encryptionKey: started.config.dataEncryptionKey, directoryUrl, email: null, caBundle, dnsServers: [dnsServer],
    ...(newOrdersPerHour === undefined ? {} : { newOrdersPerHour }),
  });
}

/** Another issuer on the stack's database and proxy, as in a second checker process. */
const anotherIssuer = (newOrdersPerHour?: number) => issuerFor(api, proxy.directoryUrl, stack.pebble.caBundle, dns.server, newOrdersPerHour);

/** The account requests (lookups and registrations) forwarded to Pebble from index `from` on. */
const accountRequestsFrom = (from: number) => proxy.forwarded.slice(from)
  .filter((f) => f.payload !== null && ('onlyReturnExisting' in f.payload || 'termsOfServiceAgreed' in f.payload));

beforeAll(async () => {
  stack = await startAcmeStack({
    issuer: ({ api: started, directoryUrl, pebble, dns: server }) => issuerFor(started, directoryUrl, pebble.caBundle, server.server, 1),
  });
  ({ dns, proxy, api, app } = stack);
}, 60_000);

afterAll(() => stack?.stop());

test('the order beyond the hourly cap fails with certificate_issuance_failed, names the wait and never reaches Pebble', async () => {
  // Both orders fall in one clock hour, the counter's window (the test's timeout allows for this wait).
  await roomInWindow(120, 3600);
  const first = await registerDomain(api, app.key, `first.cap-${process.pid}.com`);
  await publishRecords(dns, first);
  const ready = await waitForDomain(api, app.key, first.id, (d) => d.status === 'ready', 60_000);
  expect(check(ready, 'certificate').status).toBe('passing');
  expect(proxy.orders().map(orderNames)).toEqual([[first.hostname]]);
  const forwardedBefore = proxy.forwarded.length;

  const second = await registerDomain(api, app.key, `second.cap-${process.pid}.com`);
  await publishRecords(dns, second);
  const refused = await waitForDomain(api, app.key, second.id, (d) => check(d, 'certificate').status === 'failing');
  const certificate = check(refused, 'certificate');
  expect(certificate.error_code).toBe('certificate_issuance_failed');
  const nextHour = new Date(Math.ceil(Date.now() / 3600_000) * 3600_000).toISOString();
  expect(certificate.message).toBe(`The deployment reached its cap of 1 new ACME order per hour; the next order waits until ${nextHour}.`);
  expect(refused.status).toBe('pending_dns');

  // Refused again at the next checks, and still nothing was sent to Pebble: no order, no account or nonce request.
  const refusedAt = check(refused, 'certificate').observed_at as string;
  const again = await waitForDomain(api, app.key, second.id, (d) => (check(d, 'certificate').observed_at ?? '') > refusedAt);
  expect(check(again, 'certificate')).toMatchObject({ status: 'failing', error_code: 'certificate_issuance_failed', message: certificate.message });
  expect(proxy.forwarded.length).toBe(forwardedBefore);
  expect(proxy.orders().map(orderNames)).toEqual([[first.hostname]]);
  // A refusal is not a failed validation: the hostname's own budget is untouched.
  expect((await api.store.run((r) => r.rateCounters.peek(`acme:failed:${second.hostname}`, 3600, new Date()))).count).toBe(0);
}, 120_000 + 120_000);

test('another checker with the shared account key finds the account instead of registering it again, and orders under it', async () => {
  const domain = await registerDomain(api, app.key, `shared-account.cap-${process.pid}.com`);
  await publishRecords(dns, domain);
  const before = proxy.forwarded.length;
  const issued = await anotherIssuer().issue(domain.hostname, null);
  expect(new X509Certificate(issued.pemChain).checkHost(domain.hostname)).toBe(domain.hostname);
  expect(accountRequestsFrom(before).map((f) => f.payload)).toEqual([{ onlyReturnExisting: true }]);
}, 60_000);

test('two first orders at once under an account the CA does not know yet register it once, and both are issued', async () => {
  const domains = await Promise.all(['first-a', 'first-b'].map((label) => registerDomain(api, app.key, `${label}.cap-${process.pid}.com`)));
  for (const domain of domains) await publishRecords(dns, domain);
  // A new account key, as on a new deployment; the stack's checker keeps the client it already made.
  const shared = await api.store.run((r) => r.settings.get(ACME_SETTINGS.accountKeySealed));
  const fresh = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await api.store.run((r) => r.settings.set(ACME_SETTINGS.accountKeySealed, encryptSecret(fresh, api.config.dataEncryptionKey)));
  try {
    const issuer = anotherIssuer(1_000_000);
    const before = proxy.forwarded.length;
    const issued = await Promise.all(domains.map((domain) => issuer.issue(domain.hostname, null)));
    issued.forEach((certificate, i) => {
      const hostname = (domains[i] as { hostname: string }).hostname;
      expect(new X509Certificate(certificate.pemChain).checkHost(hostname)).toBe(hostname);
    });
    expect(accountRequestsFrom(before).map((f) => [f.payload, f.answer?.status])).toEqual([[{ onlyReturnExisting: true }, 400], [{ termsOfServiceAgreed: true }, 201]]);
  } finally {
    if (shared) await api.store.run((r) => r.settings.set(ACME_SETTINGS.accountKeySealed, shared));
  }
}, 60_000);

test('a newOrder the CA never answers fails with certificate_issuance_failed after the request timeout', async () => {
  // The order and the count of its failure fall in one clock hour (the test's timeout allows for this wait).
  await roomInWindow(60, 3600);
  const hostname = `stalled.cap-${process.pid}.com`;
  proxy.stallOrdersFor.add(hostname);
  // An issuer of its own, without the stack's cap of one order an hour (the cap is per issuer, the count is shared).
  const issuer = anotherIssuer();
  const started = Date.now();
  const failure = await issuer.issue(hostname, null).then(() => null, (err: unknown) => err);
  const waited = Date.now() - started;
  expect(failure).toBeInstanceOf(IssuanceError);
  expect((failure as IssuanceError).code).toBe('certificate_issuance_failed');
  expect((failure as IssuanceError).message).toMatch(new RegExp(`^The ACME order for ${hostname.replace(/\./g, '\\.')} failed: POST https://\\S+: timeout of ${ACME_REQUEST_TIMEOUT_MS}ms exceeded$`));
  expect(waited).toBeGreaterThanOrEqual(ACME_REQUEST_TIMEOUT_MS);
  expect(waited).toBeLessThan(ACME_REQUEST_TIMEOUT_MS + 10_000);
  expect(proxy.stalledOrders.map(orderNames)).toEqual([[hostname]]);
  expect(proxy.orders().filter((order) => orderNames(order).includes(hostname))).toEqual([]);
  // Counted against the hostname's hourly budget of failed orders, like any failed order.
  expect((await api.store.run((r) => r.rateCounters.peek(`acme:failed:${hostname}`, 3600, new Date()))).count).toBe(1);
}, 60_000 + 90_000);
