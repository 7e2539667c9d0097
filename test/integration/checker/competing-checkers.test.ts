// Two checkers over one database (two data stores on PostgreSQL, as two
// processes would have) never check one domain at the same time: the origin
// answers slowly and records, per Host, when each probe started and ended.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InternalCa, startChecker, type CertificateIssuer, type Checker } from '@cds/checker';
import { createDataStore, type CheckRunsRepository, type DataStore, type Repositories } from '@cds/data';
import { silentLogger } from '@cds/logging';
import { InProcessBus } from '@cds/messaging';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
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

/** The store as a checker sees it, counting the check-run steps written through it. */
function countingSteps(store: DataStore, onWritten: (count: number) => void): DataStore {
  const wrap = (r: Repositories): Repositories => {
    const runs = r.checkRuns;
    const checkRuns: CheckRunsRepository = {
      claimDue: (...args) => runs.claimDue(...args),
      claim: (...args) => runs.claim(...args),
      extend: (...args) => runs.extend(...args),
      release: (...args) => runs.release(...args),
      record: async (records, leasedBy) => {
        const written = await runs.record(records, leasedBy);
        onWritten(written.length);
        return written;
      },
    };
    return { ...r, checkRuns };
  };
  return {
    kind: store.kind,
    transaction: (fn) => store.transaction((r) => fn(wrap(r))),
    run: (fn) => store.run((r) => fn(wrap(r))),
    migrate: () => store.migrate(),
    pendingMigrations: () => store.pendingMigrations(),
    pendingIndexes: () => store.pendingIndexes(),
    revertLastMigration: () => store.revertLastMigration(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

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
  // Each checker's store counts the check-run steps it wrote, and issues the certificates of the domains it checked first.
  const steps = [0, 0];
  const issued = [0, 0];
  const checkers: Checker[] = [];
  for (const [index, store] of [api.store, second].entries()) {
    const ca = new InternalCa(store, api.config.dataEncryptionKey);
    const issuer: CertificateIssuer = {
      kind: ca.kind,
      issue: (hostname) => {
        issued[index] = (issued[index] ?? 0) + 1;
        return ca.issue(hostname);
      },
    };
    const counted = countingSteps(store, (written) => { steps[index] = (steps[index] ?? 0) + written; });
    checkers.push(await startChecker({ config: api.config, logger: silentLogger, store: counted, bus: new InProcessBus(), pollIntervalMs: 50, concurrency: 8, issuer }));
  }
  // Both checkers compete until every domain has its certificate and has been probed twice (two runs each).
  await eventually('every domain issued and probed twice, with steps by both checkers', () => (issued[0] ?? 0) + (issued[1] ?? 0) >= DOMAINS
    && hostnames.every((hostname) => (probes.get(hostname) ?? []).length >= 2)
    && (steps[0] ?? 0) > DOMAINS / 2 && (steps[1] ?? 0) > DOMAINS / 2, { timeoutMs: 30_000 });
  await Promise.all(checkers.map((c) => c.stop()));
  if (second !== api.store) await second.close();

  // Every certificate was issued once, by whichever checker ran the domain first; both checkers ran many steps.
  expect((issued[0] ?? 0) + (issued[1] ?? 0)).toBe(DOMAINS);
  expect(steps[0]).toBeGreaterThan(DOMAINS / 2);
  expect(steps[1]).toBeGreaterThan(DOMAINS / 2);
  for (const hostname of hostnames) {
    const intervals = (probes.get(hostname) ?? []).sort((a, b) => a[0] - b[0]);
    expect(intervals.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < intervals.length; i++) expect((intervals[i] as [number, number])[0]).toBeGreaterThanOrEqual((intervals[i - 1] as [number, number])[1]);
  }
});
