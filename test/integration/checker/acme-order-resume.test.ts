// A checker killed after the CA issued a certificate but before it was stored
// leaves its order saved; the next try for the hostname carries that order on
// (downloads the same certificate, with the key saved beside it) instead of
// having Pebble issue a second one. Once the certificate is stored, the next
// order is a new one. Against a real Pebble behind the recording proxy.
import { randomUUID, X509Certificate } from 'node:crypto';
import { AcmeIssuer } from '@cds/checker';
import { orderNames } from './acme-proxy';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import { publishRecords, registerDomain } from './checker-stack';

let stack: AcmeStack;
const resumed: string[] = [];

/** A checker's issuer on the stack's database and proxy: each call is another checker process. */
const checkerIssuer = () =>
  new AcmeIssuer({
    store: stack.api.store, encryptionKey: stack.api.config.dataEncryptionKey, directoryUrl: stack.proxy.directoryUrl, email: null,
    caBundle: stack.pebble.caBundle, dnsServers: [stack.dns.server], orderBudget: { perHour: 100, perApplicationPerHour: 20 },
    onOrderResumed: (hostname, status) => resumed.push(`${hostname} ${status}`),
  });

const ordersFor = (hostname: string) => stack.proxy.orders().filter((order) => orderNames(order).includes(hostname)).length;
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

beforeAll(async () => {
  stack = await startAcmeStack();
});

afterAll(() => stack?.stop());

test('an issued certificate that was never stored is fetched again from the same order: no second order reaches the CA', async () => {
  const domain = await registerDomain(stack.api, stack.app.key, `resume.order-${process.pid}.com`);
  // Routing only: the edge answers HTTP-01 for the hostname, and the stack's own checker never orders (ownership fails).
  await publishRecords(stack.dns, domain, { txt: false });
  const applicationId = randomUUID();

  const first = await checkerIssuer().issue(domain.hostname, null, applicationId);
  expect(ordersFor(domain.hostname)).toBe(1);
  // Its checker dies here: certificateStored is never called.

  const again = await checkerIssuer().issue(domain.hostname, null, applicationId);
  expect(resumed).toEqual([`${domain.hostname} valid`]);
  expect(ordersFor(domain.hostname)).toBe(1);
  expect(fingerprint(again.pemChain)).toBe(fingerprint(first.pemChain));
  expect(again.keyPem).toBe(first.keyPem);
  expect(new X509Certificate(again.pemChain).checkHost(domain.hostname)).toBe(domain.hostname);

  // Stored: nothing is left to carry on, and a later first order is a new one.
  const issuer = checkerIssuer();
  await issuer.certificateStored(domain.hostname);
  const third = await issuer.issue(domain.hostname, null, applicationId);
  expect(ordersFor(domain.hostname)).toBe(2);
  expect(fingerprint(third.pemChain)).not.toBe(fingerprint(first.pemChain));
  expect(resumed).toHaveLength(1);
});

test("a renewal does not carry on the first certificate's order", async () => {
  const domain = await registerDomain(stack.api, stack.app.key, `renew.order-${process.pid}.com`);
  await publishRecords(stack.dns, domain, { txt: false });
  const applicationId = randomUUID();
  const first = await checkerIssuer().issue(domain.hostname, null, applicationId);
  const renewal = await checkerIssuer().issue(domain.hostname, first.pemChain, applicationId);
  expect(ordersFor(domain.hostname)).toBe(2);
  expect(fingerprint(renewal.pemChain)).not.toBe(fingerprint(first.pemChain));
  expect(resumed.filter((r) => r.startsWith(domain.hostname))).toEqual([]);
});
