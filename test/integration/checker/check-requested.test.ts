// The consumer path alone: with the scheduler effectively off (it polls once an
// hour), `domain.check.requested` from the outbox runs the checks, on create
// and on a manual recheck.
import { startChecker, type Checker } from '@cds/checker';
import { outboxSource } from '@cds/data';
import { silentLogger } from '@cds/logging';
import { InProcessBus, startOutboxRelay, type OutboxRelay } from '@cds/messaging';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { startCheckerDns, type CheckerDns } from './checker-dns';
import { check, EDGE_TARGET, publishRecords, registerDomain, waitForDomain } from './checker-stack';

let dns: CheckerDns;
let api: TestApi;
let bus: InProcessBus;
let relay: OutboxRelay;
let checker: Checker;

beforeAll(async () => {
  dns = await startCheckerDns();
  api = await startTestApi({ EDGE_TARGET, DNS_SERVERS: dns.server, CERT_ISSUER: 'internal', CHECK_SCHEDULE_PENDING: '1h', CHECK_INTERVAL_LIVE: '1h' });
  bus = new InProcessBus();
  relay = startOutboxRelay({ source: outboxSource(api.store), bus, intervalMs: 50 });
  checker = await startChecker({ config: api.config, logger: silentLogger, store: api.store, bus, pollIntervalMs: 3600_000 });
});

afterAll(async () => {
  await checker?.stop();
  await relay?.stop();
  await bus?.close();
  await api?.close();
  await dns?.stop();
});

test('created and recheck messages run all four checks at once', async () => {
  const { key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  const domain = await registerDomain(api, key, `www.requested-${process.pid}.com`);
  const first = await waitForDomain(api, key, domain.id, (d) => check(d, 'ownership').status === 'failing');
  expect(check(first, 'routing').error_code).toBe('cname_not_found');
  const nextCheck = Date.parse(check(first, 'ownership').next_check_at as string);
  expect(nextCheck - Date.parse(check(first, 'ownership').observed_at as string)).toBe(3600_000);

  await publishRecords(dns, domain);
  const recheck = await api.request('POST', `/v1/domains/${domain.id}/checks`, { token: key });
  expect(recheck.status).toBe(202);
  // The certificate is issued right after the DNS checks are recorded: its own step of the same run.
  const after = await waitForDomain(api, key, domain.id, (d) => check(d, 'ownership').status === 'passing' && check(d, 'certificate').status !== 'pending');
  expect(check(after, 'routing').status).toBe('passing');
  expect(check(after, 'certificate').status).toBe('passing');
  expect(check(after, 'origin').error_code).toBe('no_active_origin');
  expect(after.status).toBe('pending_dns');
});
