// The cap on new ACME orders per hour, against a real Pebble behind a proxy
// that records what reaches it: with a cap of one, the second hostname's
// order is refused before anything is sent to the CA.
import { AcmeIssuer } from '@cds/checker';
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

beforeAll(async () => {
  stack = await startAcmeStack({
    issuer: ({ api: started, directoryUrl, pebble, dns: server }) => new AcmeIssuer({
      store: started.store, encryptionKey: started.config.dataEncryptionKey, directoryUrl, email: null,
      caBundle: pebble.caBundle, dnsServers: [server.server], newOrdersPerHour: 1,
    }),
  });
  ({ dns, proxy, api, app } = stack);
}, 60_000);

afterAll(() => stack?.stop());

test('the order beyond the hourly cap fails with certificate_issuance_failed, names the wait and never reaches Pebble', async () => {
  // Both orders fall in one clock hour, the counter's window.
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
}, 120_000);
