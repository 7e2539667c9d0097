// DECISIONS §11: without a CA's renewal window a certificate is renewed once
// two thirds of its lifetime have passed, whatever that lifetime is: here an
// internal-CA certificate of 30 seconds, checked every second. It is kept
// until two thirds of its life, replaced soon after, long before it expires,
// and the domain stays ready with its certificate check passing throughout.
import type { CertificateRow } from '@cds/data';
import { renewalAfter, ROUTING_KEYS } from '@cds/core';
import { InternalCa } from '@cds/checker';
import { activateOrigin, check, publishRecords, registerDomain, startCheckerStack, startOrigin, waitForDomain, type CheckerStack, type TestOrigin } from './checker-stack';

const LIFETIME_MS = 30_000;

let stack: CheckerStack;
let origin: TestOrigin;

beforeAll(async () => {
  stack = await startCheckerStack({ CHECK_INTERVAL_LIVE: '1s' }, {
    issuer: (api) => new InternalCa(api.store, api.config.dataEncryptionKey, () => new Date(), LIFETIME_MS),
  });
  origin = await startOrigin();
});

afterAll(async () => {
  await origin?.close();
  await stack?.close();
});

test('a 30-second certificate is renewed once two thirds of its lifetime have passed, not before, with no event', async () => {
  const { api, dns } = stack;
  const { slug, key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  await activateOrigin(api, slug, origin.url);
  const domain = await registerDomain(api, key, `www.short-lived-${process.pid}.com`);
  await publishRecords(dns, domain);
  await waitForDomain(api, key, domain.id, (d) => d.status === 'ready');
  const certificateOf = async () => (await api.store.run((r) => r.certificates.find(domain.hostname))) as CertificateRow;
  const first = await certificateOf();
  const lifetime = first.notAfter.getTime() - first.notBefore.getTime();
  expect(lifetime).toBeGreaterThanOrEqual(LIFETIME_MS);
  expect(lifetime).toBeLessThan(LIFETIME_MS * 1.2);
  const due = renewalAfter(first, null).getTime();

  // Every 250 ms until the certificate is replaced: the domain and its certificate check as the API shows them.
  const statuses = new Set<string>();
  let replaced = first;
  while (replaced.pemChain === first.pemChain && Date.now() < first.notAfter.getTime()) {
    const seen = await waitForDomain(api, key, domain.id, () => true);
    statuses.add(`${seen.status}/${check(seen, 'certificate').status}`);
    replaced = await certificateOf();
    if (replaced.pemChain === first.pemChain) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  const replacedAt = Date.now();
  expect(replaced.pemChain).not.toBe(first.pemChain);
  // Not before two thirds of its lifetime (the new one was issued after that point) …
  expect(replaced.notBefore.getTime() + Math.min(5 * 60_000, LIFETIME_MS / 10)).toBeGreaterThanOrEqual(due);
  // … and soon after it, long before the first one expired (checks run every second).
  expect(replacedAt - due).toBeLessThan(4000);
  expect(first.notAfter.getTime() - replacedAt).toBeGreaterThan(5000);
  expect(statuses).toEqual(new Set(['ready/passing']));
  const events = (await api.store.run((r) => r.outbox.all(ROUTING_KEYS.eventEmitted)))
    .map((row) => row.payload as { type: string; data: { domain: { id: string } } }).filter((p) => p.data.domain.id === domain.id).map((p) => p.type);
  expect(events).toEqual(['domain.ready']);
}, 60_000);
