// Checks the edges ask for (DECISIONS §13): each edge asks at most once per
// domain per 10 s, and the checker keeps N edges to one run per domain per
// 10 s: an `edge` request that comes within 10 s of the last one it ran for
// the domain is dropped. A run of the schedule does not hold it back (the
// customer may flip the CNAME right after it). The checker's clock is moved
// instead of waiting; the scheduler is effectively off (it polls once an hour).
import { setTimeout as sleep } from 'node:timers/promises';
import { startChecker, type Checker } from '@cds/checker';
import { ROUTING_KEYS } from '@cds/core';
import { outboxSource } from '@cds/data';
import { silentLogger } from '@cds/logging';
import { InProcessBus, startOutboxRelay, type OutboxRelay } from '@cds/messaging';
import { eventually } from '../../support/eventually';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { startCheckerDns, type CheckerDns } from './checker-dns';
import { EDGE_TARGET, registerDomain } from './checker-stack';

let dns: CheckerDns;
let api: TestApi;
let bus: InProcessBus;
let relay: OutboxRelay;
let checker: Checker;
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
