// A checker killed after the CA issued a certificate but before it was stored
// leaves its order saved; the next try for the hostname carries that order on
// (downloads the same certificate, with the key saved beside it) instead of
// having Pebble issue a second one. Once the certificate is stored, the saved
// order is deleted and the next order is a new one. A saved row is only
// trusted as far as it proves itself: its key opens only for its hostname and
// order, ages and expiry are the database's, and a resumed certificate must
// name the hostname alone and carry the saved key. Against a real Pebble
// behind the recording proxy.
import { generateKeyPairSync, randomUUID, X509Certificate } from 'node:crypto';
import { AcmeIssuer, IssuanceError } from '@cds/checker';
import { decryptSecret, encryptSecret, orderKeyId } from '@cds/core';
import type { AcmeOrderRow } from '@cds/data';
import { orderNames } from './acme-proxy';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import { publishRecords, registerDomain, waitForDomain, type DomainView } from './checker-stack';

const DAY_MS = 86_400_000;

let stack: AcmeStack;
const resumed: string[] = [];
const discarded: string[] = [];

/** A checker's issuer on the stack's database and proxy: each call is another checker process (`now`: its clock). */
const checkerIssuer = (now?: () => Date) =>
  new AcmeIssuer({
    store: stack.api.store, encryptionKey: stack.api.config.dataEncryptionKey, directoryUrl: stack.proxy.directoryUrl, email: null,
    caBundle: stack.pebble.caBundle, dnsServers: [stack.dns.server], orderBudget: { perHour: 100, perApplicationPerHour: 20 },
    onOrderResumed: (hostname, status) => resumed.push(`${hostname} ${status}`),
    onOrderDiscarded: (hostname, reason) => discarded.push(`${hostname}: ${reason}`),
    ...(now ? { now } : {}),
  });

const ordersFor = (hostname: string) => stack.proxy.orders().filter((order) => orderNames(order).includes(hostname)).length;
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
const savedOrder = (hostname: string): Promise<AcmeOrderRow | null> => stack.api.store.run((r) => r.acmeOrders.findCurrent(hostname, DAY_MS));
const sealOrderKey = (hostname: string, orderUrl: string, keyPem: string) =>
  encryptSecret(keyPem, stack.api.config.dataEncryptionKey, { purpose: 'acme-order-key', id: orderKeyId(hostname, orderUrl) });
const anotherKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** A domain whose HTTP-01 answers the edge serves; the stack's own checker never orders for it (ownership fails). */
async function routedDomain(name: string): Promise<DomainView> {
  const domain = await registerDomain(stack.api, stack.app.key, `${name}.order-${process.pid}.com`);
  await publishRecords(stack.dns, domain, { txt: false });
  return domain;
}

beforeAll(async () => {
  stack = await startAcmeStack();
});

afterAll(() => stack?.stop());

test('an issued certificate that was never stored is fetched again from the same order: no second order reaches the CA', async () => {
  const domain = await routedDomain('resume');
  const applicationId = randomUUID();

  const first = await checkerIssuer().issue(domain.hostname, null, applicationId);
  expect(ordersFor(domain.hostname)).toBe(1);
  // Its checker dies here: certificateStored is never called. The order is saved, its key sealed for this hostname and order.
  const saved = await savedOrder(domain.hostname);
  expect(saved?.orderUrl).toMatch(/^https:\/\//);
  expect(saved?.keySealed).toMatch(/^v3\./);
  const label = { purpose: 'acme-order-key', id: orderKeyId(domain.hostname, saved?.orderUrl as string) } as const;
  expect(decryptSecret(saved?.keySealed as string, stack.api.config.dataEncryptionKey, label)).toBe(first.keyPem);

  const again = await checkerIssuer().issue(domain.hostname, null, applicationId);
  expect(resumed).toEqual([`${domain.hostname} valid`]);
  expect(ordersFor(domain.hostname)).toBe(1);
  expect(fingerprint(again.pemChain)).toBe(fingerprint(first.pemChain));
  expect(again.keyPem).toBe(first.keyPem);
  expect(new X509Certificate(again.pemChain).checkHost(domain.hostname)).toBe(domain.hostname);

  // Stored: the saved order is deleted, and a later first order is a new one.
  const issuer = checkerIssuer();
  await issuer.certificateStored(domain.hostname);
  expect(await savedOrder(domain.hostname)).toBeNull();
  const third = await issuer.issue(domain.hostname, null, applicationId);
  expect(ordersFor(domain.hostname)).toBe(2);
  expect(fingerprint(third.pemChain)).not.toBe(fingerprint(first.pemChain));
  expect(resumed).toHaveLength(1);
});

test("a renewal does not carry on the first certificate's order", async () => {
  const domain = await routedDomain('renew');
  const applicationId = randomUUID();
  const first = await checkerIssuer().issue(domain.hostname, null, applicationId);
  const renewal = await checkerIssuer().issue(domain.hostname, first.pemChain, applicationId);
  expect(ordersFor(domain.hostname)).toBe(2);
  expect(fingerprint(renewal.pemChain)).not.toBe(fingerprint(first.pemChain));
  expect(resumed.filter((r) => r.startsWith(domain.hostname))).toEqual([]);
});

test('the checker deletes the saved order once it has stored the certificate', async () => {
  const domain = await registerDomain(stack.api, stack.app.key, `stored.order-${process.pid}.com`);
  await publishRecords(stack.dns, domain);
  await waitForDomain(stack.api, stack.app.key, domain.id, (d) => d.status === 'ready', 60_000);
  expect(await stack.api.store.run((r) => r.certificates.find(domain.hostname))).not.toBeNull();
  expect(ordersFor(domain.hostname)).toBe(1);
  expect(await savedOrder(domain.hostname)).toBeNull();
});

test("a resumed order whose certificate names another hostname is refused: nothing is returned to store, the saved row is deleted, the next try orders anew", async () => {
  const [owner, victim] = [await routedDomain('names-a'), await routedDomain('names-b')];
  const applicationId = randomUUID();
  const issued = await checkerIssuer().issue(owner.hostname, null, applicationId);
  const ownerOrder = (await savedOrder(owner.hostname)) as AcmeOrderRow;
  // The victim's row points at the owner's order, its key sealed for the victim and that order: the seal holds, the certificate must not.
  await stack.api.store.run((r) => r.acmeOrders.save({
    hostname: victim.hostname, orderUrl: ownerOrder.orderUrl, keySealed: sealOrderKey(victim.hostname, ownerOrder.orderUrl, issued.keyPem), replaces: null, expiresAt: null,
  }));

  const refused = checkerIssuer().issue(victim.hostname, null, applicationId);
  await expect(refused).rejects.toBeInstanceOf(IssuanceError);
  await expect(refused).rejects.toThrow(
    `the certificate names DNS:${owner.hostname}, not DNS:${victim.hostname} alone; the order is discarded and the next try places a new one`,
  );
  expect(resumed).toContain(`${victim.hostname} valid`);
  expect(discarded).toContain(`${victim.hostname}: the certificate names DNS:${owner.hostname}, not DNS:${victim.hostname} alone`);
  expect(await savedOrder(victim.hostname)).toBeNull();
  expect(ordersFor(victim.hostname)).toBe(0);

  const fresh = await checkerIssuer().issue(victim.hostname, null, applicationId);
  expect(new X509Certificate(fresh.pemChain).subjectAltName).toBe(`DNS:${victim.hostname}`);
  expect(ordersFor(victim.hostname)).toBe(1);
});

test("a resumed order whose certificate does not carry the saved key is refused and its row deleted", async () => {
  const domain = await routedDomain('key');
  const applicationId = randomUUID();
  await checkerIssuer().issue(domain.hostname, null, applicationId);
  const saved = (await savedOrder(domain.hostname)) as AcmeOrderRow;
  await stack.api.store.run((r) => r.acmeOrders.save({ ...saved, keySealed: sealOrderKey(domain.hostname, saved.orderUrl, anotherKey()) }));

  await expect(checkerIssuer().issue(domain.hostname, null, applicationId)).rejects.toThrow(
    "the certificate's public key is not the order's key; the order is discarded and the next try places a new one",
  );
  expect(await savedOrder(domain.hostname)).toBeNull();
  expect(ordersFor(domain.hostname)).toBe(1);
});

test("an order key copied from another hostname's row does not open: that order is dropped and a new one placed", async () => {
  const [source, target] = [await routedDomain('copied-a'), await routedDomain('copied-b')];
  const applicationId = randomUUID();
  await checkerIssuer().issue(source.hostname, null, applicationId);
  const copied = (await savedOrder(source.hostname)) as AcmeOrderRow;
  await stack.api.store.run((r) => r.acmeOrders.save({ ...copied, hostname: target.hostname }));

  const issued = await checkerIssuer().issue(target.hostname, null, applicationId);
  expect(discarded).toContain(
    `${target.hostname}: The sealed acme-order-key ${orderKeyId(target.hostname, copied.orderUrl)} does not open: altered, copied from another row, or sealed with another key.`,
  );
  expect(resumed.filter((r) => r.startsWith(target.hostname))).toEqual([]);
  expect(new X509Certificate(issued.pemChain).subjectAltName).toBe(`DNS:${target.hostname}`);
  expect(ordersFor(target.hostname)).toBe(1);
  expect((await savedOrder(target.hostname))?.orderUrl).not.toBe(copied.orderUrl);
});

test("a saved order's age and expiry are the database's: a checker with a clock days ahead still carries it on, an expired one is not", async () => {
  const domain = await routedDomain('clock');
  const applicationId = randomUUID();
  const first = await checkerIssuer().issue(domain.hostname, null, applicationId);

  const ahead = await checkerIssuer(() => new Date(Date.now() + 3 * DAY_MS)).issue(domain.hostname, null, applicationId);
  expect(resumed).toContain(`${domain.hostname} valid`);
  expect(ordersFor(domain.hostname)).toBe(1);
  expect(fingerprint(ahead.pemChain)).toBe(fingerprint(first.pemChain));

  // The CA's expiry passed (by the database's clock): the order is deleted, not carried on.
  const saved = (await savedOrder(domain.hostname)) as AcmeOrderRow;
  expect(saved.expiresAt?.getTime()).toBeGreaterThan(Date.now());
  await stack.api.store.run((r) => r.acmeOrders.save({ ...saved, expiresAt: new Date(Date.now() - 60_000) }));
  const renewed = await checkerIssuer().issue(domain.hostname, null, applicationId);
  expect(ordersFor(domain.hostname)).toBe(2);
  expect(fingerprint(renewed.pemChain)).not.toBe(fingerprint(first.pemChain));
  expect((await savedOrder(domain.hostname))?.orderUrl).not.toBe(saved.orderUrl);
});
