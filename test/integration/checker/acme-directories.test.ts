// More than one certificate authority (DECISIONS §14), against two real
// Pebbles, each behind its own recording proxy, in ACME_DIRECTORY_URL's
// order: a CAA record naming only the second CA's identity sends the order
// there; a first CA answering 500, or with its port closed, costs no check:
// the same check gets the certificate from the second, and the first is set
// aside and asked again only after the pause (the checker's clock moved past
// it); a renewal goes to the directory that issued the certificate. The
// certificate keeps its issuing directory, which the operator's domain lookup
// shows, and the per-directory metrics follow.
import { DIRECTORY_SET_ASIDE_MS } from '@cds/checker';
import type { CertificateRow } from '@cds/data';
import { eventually } from '../../support/eventually';
import { TestClock } from '../../support/test-clock';
import { sample } from '../metrics/scrape';
import { orderNames, type AcmeProxy } from './acme-proxy';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import { check, publishRecords, registerDomain, waitForDomain, type DomainView } from './checker-stack';
import { expiringCertificate } from './expiring-certificate';

const [FIRST_CA, SECOND_CA] = ['ca-one.test', 'ca-two.test'];

const clock = new TestClock();
let stack: AcmeStack;
let first: AcmeProxy;
let second: AcmeProxy;

beforeAll(async () => {
  stack = await startAcmeStack({ cas: [{}, {}], now: clock.now, env: { ACME_CAA_IDENTITY_1: FIRST_CA, ACME_CAA_IDENTITY_2: SECOND_CA } });
  [first, second] = stack.cas.map((ca) => ca.proxy) as [AcmeProxy, AcmeProxy];
});

afterAll(() => stack?.stop());

/** Each domain under an apex of its own, where its CAA records go (the hostname itself is a CNAME, whose CAA is the target's). */
const hostnameFor = (label: string) => `shop.${label}-${process.pid}.com`;
const apexOf = (hostname: string) => hostname.slice(hostname.indexOf('.') + 1);
const ordersAt = (proxy: AcmeProxy, hostname: string) => proxy.orders().filter((order) => orderNames(order).includes(hostname)).length;
const setAside = (proxy: AcmeProxy) => sample('cds_acme_directory_set_aside', `directory="${proxy.directoryUrl}"`);

async function certificateOf(hostname: string): Promise<CertificateRow> {
  const row = await stack.api.store.run((r) => r.certificates.find(hostname));
  if (!row) throw new Error(`no certificate for ${hostname}`);
  return row;
}

/** Registers a domain, lets `before` add records of its own, publishes the domain's records and waits until it is ready. */
async function readyDomain(label: string, before?: (hostname: string) => Promise<void>): Promise<DomainView> {
  const domain = await registerDomain(stack.api, stack.app.key, hostnameFor(label));
  await before?.(domain.hostname);
  await publishRecords(stack.dns, domain);
  return waitForDomain(stack.api, stack.app.key, domain.id, (d) => d.status === 'ready', 60_000);
}

/** The certificate checks of the domain's kept runs: none may have failed. */
async function certificateChecksOf(domainId: string): Promise<string[]> {
  const runs = await stack.api.store.run((r) => r.domainLookup.recentRuns(domainId));
  return runs.flatMap((run) => run.checks.filter((c) => c.type === 'certificate').map((c) => c.status));
}

test('a CAA record naming only the second CA sends the order there; the lookup shows the issuing directory', async () => {
  const domain = await readyDomain('caa-second', (hostname) => stack.dns.addCaa(apexOf(hostname), SECOND_CA));
  const row = await certificateOf(domain.hostname);
  expect(row.directoryUrl).toBe(second.directoryUrl);
  expect([ordersAt(first, domain.hostname), ordersAt(second, domain.hostname)]).toEqual([0, 1]);

  const lookup = await stack.api.operator<{ certificate: { issuer: string; directory_url: string } }>('GET', `/operator/v1/domains/${domain.hostname}`);
  expect(lookup.status).toBe(200);
  expect(lookup.body.certificate).toMatchObject({ issuer: 'acme', directory_url: second.directoryUrl });
  // Not a failure of the first CA: it is not set aside.
  expect(await setAside(first)).toBe(0);
});

test('a CAA record naming none of the CAs forbids issuance, and no directory is asked', async () => {
  const domain = await registerDomain(stack.api, stack.app.key, hostnameFor('caa-none'));
  await stack.dns.addCaa(apexOf(domain.hostname), 'another-ca.test');
  await publishRecords(stack.dns, domain);
  const seen = await waitForDomain(stack.api, stack.app.key, domain.id, (d) => check(d, 'certificate').error_code !== null, 60_000);
  expect(check(seen, 'certificate')).toMatchObject({
    status: 'failing', error_code: 'caa_forbids_issuance',
    message: `The CAA records of ${apexOf(domain.hostname)} (issue "another-ca.test") do not allow any of the configured CAs to issue.`,
  });
  expect([ordersAt(first, domain.hostname), ordersAt(second, domain.hostname)]).toEqual([0, 0]);
});

test('the first CA answering 500: the same check gets the certificate from the second; the first is asked again only after the pause', async () => {
  first.failWith = 500;
  const askedBefore = first.received;
  const failuresBefore = (await sample('cds_acme_directory_failures_total', `directory="${first.directoryUrl}",reason="server_error"`)) ?? 0;
  const domain = await readyDomain('outage');
  expect((await certificateOf(domain.hostname)).directoryUrl).toBe(second.directoryUrl);
  expect(first.received).toBeGreaterThan(askedBefore);
  expect(ordersAt(second, domain.hostname)).toBe(1);
  // Within one check: no run saw the certificate check fail.
  expect(await certificateChecksOf(domain.id)).not.toContain('failing');
  // The CA's 500 was no failed validation: the hostname's hourly count of those is untouched.
  expect((await stack.api.store.run((r) => r.rateCounters.peek(`acme:failed:${domain.hostname}`, 3600, clock.now()))).count).toBe(0);
  expect(stack.checkerLog.some((line) => line.includes('an ACME directory failed') && line.includes(first.directoryUrl) && line.includes('HTTP 500'))).toBe(true);
  expect(await setAside(first)).toBe(1);
  expect(await setAside(second)).toBe(0);
  expect(await sample('cds_acme_directory_failures_total', `directory="${first.directoryUrl}",reason="server_error"`)).toBeGreaterThan(failuresBefore);
  expect(await sample('cds_acme_directory_orders_total', `directory="${second.directoryUrl}",result="issued"`)).toBeGreaterThanOrEqual(1);

  // Set aside: the next domain's order goes to the second without a word to the first.
  const asked = first.received;
  const during = await readyDomain('during-pause');
  expect((await certificateOf(during.hostname)).directoryUrl).toBe(second.directoryUrl);
  expect(first.received).toBe(asked);

  // The first is back and its pause over: the preferred directory gets the orders again.
  first.failWith = null;
  clock.advance(DIRECTORY_SET_ASIDE_MS + 1000);
  expect(await setAside(first)).toBe(0);
  const after = await readyDomain('after-pause');
  expect((await certificateOf(after.hostname)).directoryUrl).toBe(first.directoryUrl);
  expect([ordersAt(first, after.hostname), ordersAt(second, after.hostname)]).toEqual([1, 0]);
});

test('with both CAs healthy, a renewal goes to the directory that issued the certificate', async () => {
  const domain = await readyDomain('renewal');
  const issued = await certificateOf(domain.hostname);
  expect(issued.directoryUrl).toBe(first.directoryUrl);
  // The certificate as the second CA would have issued it, near the end of its life: its renewal is due.
  const expiring = { ...(await expiringCertificate(domain, 10, stack.api.config.dataEncryptionKey)), directoryUrl: second.directoryUrl };
  await stack.api.store.run((r) => r.certificates.save(expiring));
  let renewed: CertificateRow = expiring;
  await eventually('the expiring certificate is renewed', async () => {
    renewed = await certificateOf(domain.hostname);
    return renewed.pemChain !== expiring.pemChain;
  }, { timeoutMs: 60_000 });
  expect(renewed.directoryUrl).toBe(second.directoryUrl);
  expect([ordersAt(first, domain.hostname), ordersAt(second, domain.hostname)]).toEqual([1, 1]);
});

test("the first CA's port closed: the same check gets the certificate from the second", async () => {
  await first.close();
  const domain = await readyDomain('port-closed');
  expect((await certificateOf(domain.hostname)).directoryUrl).toBe(second.directoryUrl);
  expect(await certificateChecksOf(domain.id)).not.toContain('failing');
  expect(await setAside(first)).toBe(1);
  expect(stack.checkerLog.some((line) => line.includes('an ACME directory failed') && line.includes(first.directoryUrl) && line.includes('ECONNREFUSED'))).toBe(true);
});
