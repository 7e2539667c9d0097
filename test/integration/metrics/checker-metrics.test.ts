// The checker's metrics over a real ACME server (pebble), DNS (challtestsrv)
// and the edge answering HTTP-01: checks by type and result, ACME orders and
// failures by reason, the earliest live certificate's expiry, and the check
// requests its bus consumer handled.
import type { TestApi } from '../../support/api-harness';
import { startAcmeStack, type AcmeStack } from '../checker/acme-stack';
import type { CheckerDns } from '../checker/checker-dns';
import { check, publishRecords, registerDomain, waitForDomain } from '../checker/checker-stack';
import { sample } from './scrape';

let stack: AcmeStack;
let dns: CheckerDns;
let api: TestApi;
let app: { slug: string; key: string };

beforeAll(async () => {
  stack = await startAcmeStack();
  ({ dns, api, app } = stack);
});

afterAll(() => stack?.stop());

const CHECKS = ['ownership', 'routing', 'certificate', 'origin'];
const checks = (check: string, result: string) => sample('cds_checks_total', `check="${check}",result="${result}"`);

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
