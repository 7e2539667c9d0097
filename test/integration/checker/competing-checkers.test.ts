// Two checkers over one database (two data stores on PostgreSQL, as two
// processes would have) never check one domain at the same time: the origin
// answers slowly and records, per Host, when each probe started and ended.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChecker, type Checker } from '@cds/checker';
import { createDataStore, type DataStore } from '@cds/data';
import { InProcessBus, silentLogger } from '@cds/messaging';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { startCheckerDns, type CheckerDns } from './checker-dns';
import { activateOrigin, EDGE_TARGET, publishRecords, registerDomain } from './checker-stack';

const DOMAINS = 30;
const PROBE_MS = 150;

let api: TestApi;
let dns: CheckerDns;
let origin: http.Server;
const probes = new Map<string, Array<[number, number]>>();

beforeAll(async () => {
  dns = await startCheckerDns();
  api = await startTestApi({ EDGE_TARGET, DNS_SERVERS: dns.server, CERT_ISSUER: 'internal', CHECK_SCHEDULE_PENDING: '100ms', CHECK_INTERVAL_LIVE: '100ms' });
  origin = http.createServer((req, res) => {
    const started = Date.now();
    setTimeout(() => {
      const host = req.headers.host ?? '';
      probes.set(host, [...(probes.get(host) ?? []), [started, Date.now()]]);
      res.end('ok');
    }, PROBE_MS);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  origin?.closeAllConnections();
  await new Promise<void>((resolve) => (origin ? origin.close(() => resolve()) : resolve()));
  await api?.close();
  await dns?.stop();
});

test('every domain is checked, by both checkers between them, never by two at once', async () => {
  const { slug, key } = await api.createApplication('compete', { live_domains: DOMAINS, api_requests_per_minute: 100_000 });
  await activateOrigin(api, slug, `http://127.0.0.1:${(origin.address() as AddressInfo).port}`, '/');
  const hostnames: string[] = [];
  for (let i = 0; i < DOMAINS; i++) {
    const domain = await registerDomain(api, key, `d${i}.compete-${process.pid}.com`);
    await publishRecords(dns, domain);
    hostnames.push(domain.hostname);
  }
  // A second store on PostgreSQL is a second connection pool, as a second process has; SQLite shares the one store.
  const second: DataStore = api.store.kind === 'postgres' ? await createDataStore({ url: api.config.databaseUrl }) : api.store;
  const runs = [0, 0];
  const checkers: Checker[] = [];
  for (const [index, store] of [api.store, second].entries()) {
    checkers.push(await startChecker({
      config: api.config, logger: silentLogger, store, bus: new InProcessBus(), pollIntervalMs: 50, concurrency: 8,
      afterCommit: () => { runs[index] = (runs[index] ?? 0) + 1; },
    }));
  }
  await sleep(4000);
  await Promise.all(checkers.map((c) => c.stop()));
  if (second !== api.store) await second.close();

  expect(runs[0]).toBeGreaterThan(DOMAINS / 4);
  expect(runs[1]).toBeGreaterThan(DOMAINS / 4);
  for (const hostname of hostnames) {
    const intervals = (probes.get(hostname) ?? []).sort((a, b) => a[0] - b[0]);
    expect(intervals.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < intervals.length; i++) expect((intervals[i] as [number, number])[0]).toBeGreaterThanOrEqual((intervals[i - 1] as [number, number])[1]);
  }
});
