// The consumer path alone: with the scheduler effectively off (it polls once an
// hour), `domain.check.requested` from the outbox runs the checks, on create
// and on a manual recheck. Checks the edges ask for (DECISIONS §13): each edge
// asks at most once per domain per 10 s, and the checker keeps N edges to one
// run per domain per 10 s: an `edge` request that comes within 10 s of the
// last one it ran for the domain is dropped. A run of the schedule does not
// hold it back (the customer may flip the CNAME right after it). The checker's
// clock is moved for that instead of waiting.
import { setTimeout as sleep } from 'node:timers/promises';
import { startChecker, type Checker } from '@cds/checker';
import { ROUTING_KEYS } from '@cds/core';
import { outboxSource } from '@cds/data';
import { silentLogger } from '@cds/logging';
import { InProcessBus, startOutboxRelay, type OutboxRelay } from '@cds/messaging';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { startCheckerDns, type CheckerDns } from './checker-dns';
import { check, EDGE_TARGET, publishRecords, registerDomain, waitForDomain } from './checker-stack';

let dns: CheckerDns;
let api: TestApi;
let bus: InProcessBus;
let relay: OutboxRelay;
let checker: Checker;
/** How far the checker's clock is ahead of the wall clock. */
let offsetMs = 0;

beforeAll(async () => {
  dns = await startCheckerDns();
  api = await startTestApi({ EDGE_TARGET, DNS_SERVERS: dns.server, CERT_ISSUER: 'internal', CHECK_SCHEDULE_PENDING: '1h', CHECK_INTERVAL_LIVE: '1h' });
  bus = new InProcessBus();
  relay = startOutboxRelay({ source: outboxSource(api.store), bus, intervalMs: 50 });
  checker = await startChecker({ config: api.config, logger: silentLogger, store: api.store, bus, pollIntervalMs: 3600_000, now: () => new Date(Date.now() + offsetMs) });
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

test('five edges asking at once cause one run per 10 s, right after a scheduled run too; a domain no longer pending_dns is not run for them', async () => {
  const { key, slug } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  const applicationId = (await api.store.run((r) => r.applications.findLiveBySlug(slug)))?.id as string;
  const domain = await registerDomain(api, key, `www.edge-asks-${process.pid}.com`);
  const runs = () => api.store.run((r) => r.domainLookup.recentRuns(domain.id));
  await eventually('the first run', async () => (await runs()).length === 1);
  const edgeAsks = (n: number) => Promise.all(Array.from({ length: n }, () =>
    bus.publish(ROUTING_KEYS.domainCheckRequested, { domain_id: domain.id, application_id: applicationId, reason: 'edge' })));

  // Right after the first (scheduled) run: five edges at once cause one run.
  await edgeAsks(5);
  await eventually('the edge run', async () => (await runs()).length === 2);
  await sleep(500);
  expect((await runs()).map((r) => r.trigger)).toEqual(['edge', 'created']);

  // Within 10 s of it: dropped.
  offsetMs = 5_000;
  await edgeAsks(5);
  await sleep(500);
  expect(await runs()).toHaveLength(2);

  // 11 s and more after it: one more run for five more requests.
  offsetMs = 11_000;
  await edgeAsks(5);
  await eventually('the second edge run', async () => (await runs()).length === 3);
  await sleep(500);
  expect((await runs()).map((r) => r.trigger)).toEqual(['edge', 'edge', 'created']);

  // Ready meanwhile (as a run seeing routing pass leaves it): nothing to learn from the edge.
  await api.store.run((r) => r.domains.update(applicationId, domain.id, { status: 'ready' }));
  offsetMs = 30_000;
  await edgeAsks(3);
  await sleep(500);
  expect(await runs()).toHaveLength(3);
});
