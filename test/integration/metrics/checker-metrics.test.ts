// The checker's metrics over a real ACME server (pebble), DNS (challtestsrv)
// and the edge's challenge responder: checks by type and result, ACME orders
// and failures by reason, the earliest live certificate's expiry, and the
// check requests its bus consumer handled.
import { startChecker, type Checker } from '@cds/checker';
import { outboxSource } from '@cds/data';
import { startChallengeResponder, type ChallengeResponder } from '@cds/edge-proxy';
import { InProcessBus, silentLogger, startOutboxRelay, type OutboxRelay } from '@cds/messaging';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { freePort, startCheckerDns, type CheckerDns } from '../checker/checker-dns';
import { activateOrigin, check, EDGE_TARGET, publishRecords, registerDomain, startOrigin, waitForDomain, type TestOrigin } from '../checker/checker-stack';
import { startPebble, type TestPebble } from '../checker/pebble';
import { sample } from './scrape';

jest.setTimeout(120_000);

let dns: CheckerDns;
let pebble: TestPebble;
let api: TestApi;
let bus: InProcessBus;
let relay: OutboxRelay;
let responder: ChallengeResponder;
let checker: Checker;
let origin: TestOrigin;
let app: { slug: string; key: string };

const CHECKS = ['ownership', 'routing', 'certificate', 'origin'];
const checks = (check: string, result: string) => sample('cds_checks_total', `check="${check}",result="${result}"`);

beforeAll(async () => {
  dns = await startCheckerDns();
  const httpPort = await freePort();
  pebble = await startPebble({ httpPort, dnsServer: dns.server });
  api = await startTestApi({
    EDGE_TARGET, DNS_SERVERS: dns.server, CERT_ISSUER: 'acme', ACME_DIRECTORY_URL: pebble.directoryUrl, ACME_CA_BUNDLE: pebble.caBundle,
    EDGE_HTTP_PORT: String(httpPort), CHECK_SCHEDULE_PENDING: '300ms', CHECK_INTERVAL_LIVE: '300ms',
  });
  bus = new InProcessBus();
  relay = startOutboxRelay({ source: outboxSource(api.store), bus, intervalMs: 50 });
  responder = await startChallengeResponder({ store: api.store, port: httpPort, bindAddress: '127.0.0.1' });
  checker = await startChecker({ config: api.config, logger: silentLogger, store: api.store, bus, pollIntervalMs: 100, afterCommit: () => relay.kick() });
  origin = await startOrigin();
  app = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  await activateOrigin(api, app.slug, origin.url);
}, 60_000);

afterAll(async () => {
  await checker?.stop();
  await responder?.close();
  await relay?.stop();
  await bus?.close();
  await origin?.close();
  await api?.close();
  await pebble?.stop();
  await dns?.stop();
});

test('every label set is there at zero before the first check', async () => {
  for (const type of CHECKS) {
    for (const result of ['passing', 'failing', 'pending']) expect(await checks(type, result)).toBe(0);
    expect(await sample('cds_check_duration_seconds_count', `check="${type}"`)).toBe(0);
  }
  expect(await sample('cds_acme_orders_total', 'result="issued"')).toBe(0);
  expect(await sample('cds_acme_orders_total', 'result="failed"')).toBe(0);
  expect(await sample('cds_acme_order_failures_total', 'reason="caa_forbids_issuance"')).toBe(0);
  expect(await sample('cds_acme_order_failures_total', 'reason="certificate_issuance_failed"')).toBe(0);
  expect(await sample('cds_certificate_expiry_timestamp_seconds')).toBe(0);
  expect(await sample('cds_messages_consumed_total', 'consumer="checker",outcome="ack"')).toBe(0);
  expect(await sample('cds_messages_consumed_total', 'consumer="checker",outcome="retry"')).toBe(0);
  expect(await sample('cds_consumer_lag_seconds_count', 'consumer="checker"')).toBe(0);
});

test('a domain that goes ready counts its checks, one issued order and its certificate expiry; losing its CNAME drops the expiry', async () => {
  const domain = await registerDomain(api, app.key, `shop.metrics-${process.pid}.com`);
  await publishRecords(dns, domain);
  await waitForDomain(api, app.key, domain.id, (d) => d.status === 'ready', 60_000);

  expect(await sample('cds_acme_orders_total', 'result="issued"')).toBe(1);
  expect(await sample('cds_acme_orders_total', 'result="failed"')).toBe(0);
  for (const type of CHECKS) {
    expect(await checks(type, 'passing')).toBeGreaterThanOrEqual(1);
    const runs = (await checks(type, 'passing'))! + (await checks(type, 'failing'))! + (await checks(type, 'pending'))!;
    // Every run counts each check once and times it once (the counters are read one after the other, runs go on).
    expect(await sample('cds_check_duration_seconds_count', `check="${type}"`)).toBeGreaterThanOrEqual(runs);
  }
  // The registration's domain.check.requested went through the bus to this checker.
  const consumed = (await sample('cds_messages_consumed_total', 'consumer="checker",outcome="ack"')) ?? 0;
  expect(consumed).toBeGreaterThanOrEqual(1);
  expect(await sample('cds_messages_consumed_total', 'consumer="checker",outcome="retry"')).toBe(0);
  // Every check request carried its outbox row's time: one lag observation each, none of them long on a quiet loopback.
  expect(await sample('cds_consumer_lag_seconds_count', 'consumer="checker"')).toBe(consumed);
  const lag = (await sample('cds_consumer_lag_seconds_sum', 'consumer="checker"')) ?? -1;
  expect(lag).toBeGreaterThanOrEqual(0);
  expect(lag).toBeLessThan(consumed * 5);

  const stored = await api.store.run((r) => r.certificates.find(domain.hostname));
  expect(stored?.issuer).toBe('acme');
  expect(await sample('cds_certificate_expiry_timestamp_seconds')).toBe((stored?.notAfter.getTime() ?? 0) / 1000);

  // Traffic no longer reaches this edge: the certificate is kept but not renewed, so it leaves the gauge.
  const cname = domain.dns_records.find((r) => r.type === 'CNAME');
  await dns.clearCname(cname?.name ?? '');
  await waitForDomain(api, app.key, domain.id, (d) => check(d, 'routing').status === 'failing');
  expect(await checks('routing', 'failing')).toBeGreaterThanOrEqual(1);
  expect(await sample('cds_certificate_expiry_timestamp_seconds')).toBe(0);
  expect(await sample('cds_acme_orders_total', 'result="issued"')).toBe(1);
});

test('a CAA record that allows no CA counts failed orders by reason', async () => {
  const domain = await registerDomain(api, app.key, `shop.metrics-caa-${process.pid}.com`);
  const apex = domain.hostname.split('.').slice(1).join('.');
  await dns.addCaa(apex, ';');
  await publishRecords(dns, domain);
  const seen = await waitForDomain(api, app.key, domain.id, (d) => check(d, 'certificate').status === 'failing');
  expect(check(seen, 'certificate').error_code).toBe('caa_forbids_issuance');

  const refused = (await sample('cds_acme_order_failures_total', 'reason="caa_forbids_issuance"')) ?? 0;
  expect(refused).toBeGreaterThanOrEqual(1);
  expect(await sample('cds_acme_order_failures_total', 'reason="certificate_issuance_failed"')).toBe(0);
  expect(await sample('cds_acme_orders_total', 'result="failed"')).toBeGreaterThanOrEqual(refused);
  expect(await checks('certificate', 'failing')).toBeGreaterThanOrEqual(1);
  // A domain without a certificate adds nothing to the expiry gauge.
  expect(await sample('cds_certificate_expiry_timestamp_seconds')).toBe(0);
});
