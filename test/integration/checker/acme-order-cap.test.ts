// Limits on ACME ordering, against a real Pebble behind a proxy that records
// what reaches it: with a budget of one order per hour, the second hostname's
// order waits (its certificate check pending, saying so) and nothing is sent
// to the CA; a second checker orders
// under the account the shared key already has; two first orders at once
// register a new account once; a CA that stops answering fails the order
// after the request timeout.
import { generateKeyPairSync, randomUUID, X509Certificate } from 'node:crypto';
import { ACME_REQUEST_TIMEOUT_MS, ACME_SETTINGS, AcmeIssuer, IssuanceError } from '@cds/checker';
import { ACME_BUDGET_WAIT_PREFIX, encryptSecret, type AcmeBudgetLimits } from '@cds/core';
import { checkerMetrics } from '@cds/metrics';
import type { TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { TestClock } from '../../support/test-clock';
import { orderNames, type AcmeProxy } from './acme-proxy';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import type { CheckerDns } from './checker-dns';
import { check, publishRecords, registerDomain, waitForDomain } from './checker-stack';

let stack: AcmeStack;
let dns: CheckerDns;
let proxy: AcmeProxy;
let api: TestApi;
let app: { slug: string; key: string };
// The issuers' clock: each test that counts orders in the hourly window starts a fresh one instead of waiting for the next hour.
const clock = new TestClock();
/** The defaults of ACME_ORDERS_PER_HOUR and ACME_ORDERS_PER_APPLICATION_PER_HOUR. */
const DEFAULT_BUDGET: AcmeBudgetLimits = { perHour: 100, perApplicationPerHour: 20 };
/** The application that orders placed straight through an issuer count against. */
const directApplication = randomUUID();

/** An issuer against `directoryUrl` as a checker makes it: the sealed account key in `started`'s database, a client of its own. */
function issuerFor(started: TestApi, directoryUrl: string, caBundle: string, dnsServer: string, orderBudget: AcmeBudgetLimits): AcmeIssuer {
  return new AcmeIssuer({
    store: started.store, encryptionKey: started.config.dataEncryptionKey, directoryUrl, email: null, caBundle, dnsServers: [dnsServer], now: clock.now, orderBudget,
  });
}

/** Another issuer on the stack's database and proxy, as in a second checker process. */
const anotherIssuer = (orderBudget = DEFAULT_BUDGET) => issuerFor(api, proxy.directoryUrl, stack.pebble.caBundle, dns.server, orderBudget);

/** Orders the checkers in this process held back for the deployment's budget so far. */
const deploymentWaits = async () => (await checkerMetrics().acmeBudgetRefusals.get()).values.find((v) => v.labels.scope === 'deployment')?.value ?? 0;

/** The account requests (lookups and registrations) forwarded to Pebble from index `from` on. */
const accountRequestsFrom = (from: number) => proxy.forwarded.slice(from)
  .filter((f) => f.payload !== null && ('onlyReturnExisting' in f.payload || 'termsOfServiceAgreed' in f.payload));

beforeAll(async () => {
  stack = await startAcmeStack({
    issuer: ({ api: started, directoryUrl, pebble, dns: server }) => issuerFor(started, directoryUrl, pebble.caBundle, server.server, { ...DEFAULT_BUDGET, perHour: 1 }),
  });
  ({ dns, proxy, api, app } = stack);
});

afterAll(() => stack?.stop());

test('the order beyond the hourly budget waits: the certificate check stays pending and says so, and nothing reaches Pebble', async () => {
  // Both orders fall in one clock hour, the counter's window.
  clock.startWindow(3600);
  const first = await registerDomain(api, app.key, `first.cap-${process.pid}.com`);
  await publishRecords(dns, first);
  const ready = await waitForDomain(api, app.key, first.id, (d) => d.status === 'ready', 60_000);
  expect(check(ready, 'certificate').status).toBe('passing');
  expect(proxy.orders().map(orderNames)).toEqual([[first.hostname]]);
  const forwardedBefore = proxy.forwarded.length;
  const waitsBefore = await deploymentWaits();

  const second = await registerDomain(api, app.key, `second.cap-${process.pid}.com`);
  await publishRecords(dns, second);
  const waiting = await waitForDomain(api, app.key, second.id, (d) => (check(d, 'certificate').message ?? '').startsWith(ACME_BUDGET_WAIT_PREFIX));
  const nextHour = new Date((Math.floor(clock.epochMs() / 3600_000) + 1) * 3600_000).toISOString();
  expect(check(waiting, 'certificate')).toMatchObject({
    status: 'pending', error_code: null, message: `The certificate waits for ACME order budget: 1 order this hour of the deployment's 1; the next hour starts at ${nextHour}.`,
  });
  expect(waiting.status).toBe('pending_dns');

  // It waits again at the next checks, and still nothing was sent to Pebble: no order, no account or nonce request.
  await eventually('the order waited at two more checks', async () => (await deploymentWaits()) >= waitsBefore + 3, { timeoutMs: 10_000 });
  const again = await waitForDomain(api, app.key, second.id, () => true);
  expect(check(again, 'certificate')).toMatchObject(check(waiting, 'certificate'));
  expect(again.status).toBe('pending_dns');
  expect(proxy.forwarded.length).toBe(forwardedBefore);
  expect(proxy.orders().map(orderNames)).toEqual([[first.hostname]]);
  // Waiting is not a failed validation: the hostname's own budget is untouched.
  expect((await api.store.run((r) => r.rateCounters.peek(`acme:failed:${second.hostname}`, 3600, clock.now()))).count).toBe(0);

  // The next hour has room: the waiting domain gets its certificate.
  clock.startWindow(3600);
  const issued = await waitForDomain(api, app.key, second.id, (d) => d.status === 'ready', 60_000);
  expect(check(issued, 'certificate')).toMatchObject({ status: 'passing', error_code: null, message: null });
  expect(proxy.orders().map(orderNames)).toEqual([[first.hostname], [second.hostname]]);
});

test('another checker with the shared account key finds the account instead of registering it again, and orders under it', async () => {
  const domain = await registerDomain(api, app.key, `shared-account.cap-${process.pid}.com`);
  // Routing only: the edge answers HTTP-01, and the stack's checker never works on the hostname (ownership fails)
  // beside this issuer, which holds no lease on the domain.
  await publishRecords(dns, domain, { txt: false });
  const before = proxy.forwarded.length;
  const issued = await anotherIssuer().issue(domain.hostname, null, directApplication);
  expect(new X509Certificate(issued.pemChain).checkHost(domain.hostname)).toBe(domain.hostname);
  expect(accountRequestsFrom(before).map((f) => f.payload)).toEqual([{ onlyReturnExisting: true }]);
});

test('two first orders at once under an account the CA does not know yet register it once, and both are issued', async () => {
  const domains = await Promise.all(['first-a', 'first-b'].map((label) => registerDomain(api, app.key, `${label}.cap-${process.pid}.com`)));
  for (const domain of domains) await publishRecords(dns, domain, { txt: false });
  // A new account key, as on a new deployment; the stack's checker keeps the client it already made.
  const shared = await api.store.run((r) => r.settings.get(ACME_SETTINGS.accountKeySealed));
  const fresh = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await api.store.run((r) => r.settings.set(ACME_SETTINGS.accountKeySealed, encryptSecret(fresh, api.config.dataEncryptionKey, { purpose: 'setting', id: ACME_SETTINGS.accountKeySealed })));
  try {
    const issuer = anotherIssuer({ perHour: 1_000_000, perApplicationPerHour: 1_000_000 });
    const before = proxy.forwarded.length;
    const issued = await Promise.all(domains.map((domain) => issuer.issue(domain.hostname, null, directApplication)));
    issued.forEach((certificate, i) => {
      const hostname = (domains[i] as { hostname: string }).hostname;
      expect(new X509Certificate(certificate.pemChain).checkHost(hostname)).toBe(hostname);
    });
    expect(accountRequestsFrom(before).map((f) => [f.payload, f.answer?.status])).toEqual([[{ onlyReturnExisting: true }, 400], [{ termsOfServiceAgreed: true }, 201]]);
  } finally {
    if (shared) await api.store.run((r) => r.settings.set(ACME_SETTINGS.accountKeySealed, shared));
  }
});

test('a newOrder the CA never answers fails with certificate_issuance_failed after the request timeout', async () => {
  // The order and the count of its failure fall in one clock hour.
  clock.startWindow(3600);
  const hostname = `stalled.cap-${process.pid}.com`;
  proxy.stallOrdersFor.add(hostname);
  // An issuer of its own, with the default budget instead of the stack's one order an hour (the limits are per issuer, the counts are shared).
  const issuer = anotherIssuer();
  const started = Date.now();
  const failure = await issuer.issue(hostname, null, directApplication).then(() => null, (err: unknown) => err);
  const waited = Date.now() - started;
  expect(failure).toBeInstanceOf(IssuanceError);
  expect((failure as IssuanceError).code).toBe('certificate_issuance_failed');
  expect((failure as IssuanceError).message).toMatch(new RegExp(`^The ACME order for ${hostname.replace(/\./g, '\\.')} failed: POST https://\\S+: timeout of ${ACME_REQUEST_TIMEOUT_MS}ms exceeded$`));
  expect(waited).toBeGreaterThanOrEqual(ACME_REQUEST_TIMEOUT_MS);
  expect(waited).toBeLessThan(ACME_REQUEST_TIMEOUT_MS + 10_000);
  expect(proxy.stalledOrders.map(orderNames)).toEqual([[hostname]]);
  expect(proxy.orders().filter((order) => orderNames(order).includes(hostname))).toEqual([]);
  // The CA's silence is no failed validation of the hostname: its hourly count of those stays untouched.
  expect((await api.store.run((r) => r.rateCounters.peek(`acme:failed:${hostname}`, 3600, clock.now()))).count).toBe(0);
});
