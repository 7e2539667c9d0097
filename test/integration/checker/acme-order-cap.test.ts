// The cap on new ACME orders per hour, against a real Pebble behind a proxy
// that records what reaches it: with a cap of one, the second hostname's
// order is refused before anything is sent to the CA.
import { AcmeIssuer, startChecker, type Checker } from '@cds/checker';
import type { Edge } from '@cds/edge-proxy';
import { InProcessBus, silentLogger } from '@cds/messaging';
import { roomInWindow, startTestApi, type TestApi } from '../../support/api-harness';
import { orderNames, startAcmeProxy, type AcmeProxy } from './acme-proxy';
import { freePort, startCheckerDns, type CheckerDns } from './checker-dns';
import {
  activateOrigin, check, EDGE_TARGET, publishRecords, registerDomain, startOrigin, startTestEdge, waitForDomain, type TestOrigin,
} from './checker-stack';
import { startPebble, type TestPebble } from './pebble';

let dns: CheckerDns;
let pebble: TestPebble;
let proxy: AcmeProxy;
let api: TestApi;
let bus: InProcessBus;
let edge: Edge;
let checker: Checker;
let origin: TestOrigin;
let app: { slug: string; key: string };

beforeAll(async () => {
  dns = await startCheckerDns();
  const httpPort = await freePort();
  pebble = await startPebble({ httpPort, dnsServer: dns.server });
  proxy = await startAcmeProxy(pebble);
  api = await startTestApi({
    EDGE_TARGET, DNS_SERVERS: dns.server, CERT_ISSUER: 'acme', ACME_DIRECTORY_URL: proxy.directoryUrl, ACME_CA_BUNDLE: pebble.caBundle,
    EDGE_HTTP_PORT: String(httpPort), CHECK_SCHEDULE_PENDING: '300ms', CHECK_INTERVAL_LIVE: '300ms',
  });
  bus = new InProcessBus();
  edge = await startTestEdge(api, httpPort);
  const issuer = new AcmeIssuer({
    store: api.store, encryptionKey: api.config.dataEncryptionKey, directoryUrl: proxy.directoryUrl, email: null,
    caBundle: pebble.caBundle, dnsServers: [dns.server], newOrdersPerHour: 1,
  });
  checker = await startChecker({ config: api.config, logger: silentLogger, store: api.store, bus, pollIntervalMs: 100, issuer });
  origin = await startOrigin();
  app = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  await activateOrigin(api, app.slug, origin.url);
}, 60_000);

afterAll(async () => {
  await checker?.stop();
  await edge?.close(1000);
  await bus?.close();
  await origin?.close();
  await api?.close();
  await proxy?.close();
  await pebble?.stop();
  await dns?.stop();
});

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
