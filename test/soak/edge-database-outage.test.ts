// The edge's contract for a database outage: ready domains keep answering 200
// for at least 5 minutes. A real edge process (split mode) uses a PostgreSQL
// cluster of this test's own (initdb in a temporary directory, its own port and
// socket directory), which the test really stops with `pg_ctl stop -m
// immediate` during traffic; the machine's PostgreSQL, which other suites use at
// the same time, is never touched. The outage outlasts every cache's hard TTL
// many times over (routes 4 s, certificates 60 s, signing keys 1.5 s), so each
// reload fails and the edge must serve the stale value; fresh TLS connections
// keep the certificate cache in use. The cluster then comes back reachable only
// over its socket, where the test checks that nothing counted during the outage
// was written, and then over TCP, where the edge writes its counts. Runs beside
// the serial suites: it mostly waits.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jwtVerify } from 'jose';
import { InternalCa } from '@cds/checker';
import { encryptSecret, generateAssertionKey } from '@cds/core';
import { createDataStore, type DataStore } from '@cds/data';
import { anApplication } from '../integration/data/data-fixtures';
import { startRecordingOrigin, type RecordingOrigin } from '../integration/edge/edge-fixture';
import { seedServedDomain } from '../integration/edge/served-domain';
import { createVhost, deleteVhost, type TestVhost } from '../integration/messaging/rabbit';
import { eventually } from '../support/eventually';
import { freePort } from '../support/free-port';
import { stopProcess, waitForBuild, type Exit } from '../support/service-process';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres';

const MAIN = join(__dirname, '../../services/edge-proxy/dist/main.js');
/** The contract's 5 minutes unless EDGE_OUTAGE_SECONDS says otherwise (shorter only while developing). */
const OUTAGE_SECONDS = Number(process.env.EDGE_OUTAGE_SECONDS ?? 300);
const OUTAGE_MS = OUTAGE_SECONDS * 1000;
const INTERVAL_MS = 500;
/** Every 5th round opens new TLS connections (SNI -> certificate cache); the others reuse keep-alive ones. */
const NEW_CONNECTION_EVERY = 5;
const REQUEST_TIMEOUT_MS = 10_000;
const RECONNECT_WITHIN_MS = 10_000;
const FLUSH_WITHIN_MS = 20_000;
const START_TIMEOUT_MS = 30_000;
const ASSERTION_ISSUER = 'custom-domain-service';

const DATA_KEY = randomBytes(32);
const DEPLOYMENT_KEY = { kid: 'deployment', secret: randomBytes(32).toString('base64url') };

interface Site {
  label: string;
  applicationId: string;
  slug: string;
  domainId: string;
  hostname: string;
  reference: string;
  /** The key the edge must sign this application's assertions with. */
  key: { kid: string; secret: string };
  /** Keep-alive connections to the edge with this SNI. */
  agent: https.Agent;
}

interface Ports {
  https: number;
  http: number;
  metrics: number;
}

let pg: PrivatePostgres | undefined;
/** The test's own connection; closed while the database is stopped, then opened again. */
let store: DataStore | undefined;
let vhost: TestVhost | undefined;
let origin: RecordingOrigin | undefined;
let edge: ChildProcess | undefined;
let output = '';
let caPem: string;
let ports: Ports;
const sites: Site[] = [];

async function seedSite(label: string, withOwnKey: boolean, ca: InternalCa, originUrl: string): Promise<Site> {
  const own = withOwnKey ? generateAssertionKey() : null;
  const app = anApplication();
  const { domain } = await seedServedDomain(store as DataStore, ca, DATA_KEY, originUrl, {
    app,
    domain: { reference: `soak-${label}` },
    also: async (r) => {
      if (own) await r.assertionKeys.insert({ kid: own.kid, applicationId: app.id, secretSealed: encryptSecret(own.secret, DATA_KEY, { purpose: 'assertion-key', id: own.kid }), createdAt: new Date(), revokedAt: null });
    },
  });
  return {
    label, applicationId: app.id, slug: app.slug, domainId: domain.id, hostname: domain.hostname, reference: domain.reference,
    key: own ?? DEPLOYMENT_KEY, agent: new https.Agent({ keepAlive: true, maxSockets: 1 }),
  };
}

async function ops(path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${ports.metrics}${path}`, { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, body: await res.text() };
}

interface ControlPlane {
  reachable: boolean;
  last_error: string | null;
  failures: number;
}

async function controlPlane(): Promise<ControlPlane> {
  return (JSON.parse((await ops('/readyz')).body) as { control_plane: ControlPlane }).control_plane;
}

async function controlPlaneReachable(): Promise<boolean> {
  return (await controlPlane()).reachable;
}

async function startEdgeProcess(databaseUrl: string, amqpUrl: string): Promise<void> {
  ports = { https: await freePort(), http: await freePort(), metrics: await freePort() };
  edge = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      AMQP_URL: amqpUrl,
      EDGE_HTTPS_PORT: String(ports.https),
      EDGE_HTTP_PORT: String(ports.http),
      METRICS_PORT: String(ports.metrics),
      BIND_ADDRESS: '127.0.0.1',
      DATA_ENCRYPTION_KEY: DATA_KEY.toString('base64'),
      ASSERTION_DEPLOYMENT_KEY: DEPLOYMENT_KEY.secret,
      OPERATOR_TOKEN: randomBytes(24).toString('base64url'),
      ORIGIN_TIMEOUT: '5s',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  edge.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  edge.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  await eventually('the edge process to be ready', async () => {
    const exitCode = edge?.exitCode ?? null;
    if (exitCode !== null) throw new Error(`edge exited with ${exitCode}:\n${output}`);
    return ops('/readyz').then((r) => r.status === 200, () => false);
  }, { timeoutMs: START_TIMEOUT_MS, intervalMs: 200, explain: () => output });
}

interface Probe {
  ok: boolean;
  newConnection: boolean;
  problem?: string;
}

/** One HTTPS request to the edge for `site`; ok when it is a 200 from the origin, which received a valid assertion. */
async function probe(site: Site, path: string, newConnection: boolean): Promise<Probe> {
  let answer: { status: number; body: string; reused: boolean };
  try {
    answer = await new Promise((resolve, reject) => {
      const req = https.request({
        host: '127.0.0.1', port: ports.https, path, servername: site.hostname, ca: caPem,
        agent: newConnection ? false : site.agent, headers: { host: site.hostname }, timeout: REQUEST_TIMEOUT_MS,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), reused: req.reusedSocket }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end();
    });
  } catch (err) {
    return { ok: false, newConnection, problem: `request failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  const fresh = !answer.reused;
  if (answer.status !== 200) return { ok: false, newConnection: fresh, problem: `status ${answer.status}: ${answer.body.slice(0, 200).trim()}` };
  if (answer.body !== `origin ${path}`) return { ok: false, newConnection: fresh, problem: `200 with a body not from the origin: ${answer.body.slice(0, 200)}` };
  const received = origin?.requests.find((r) => r.url === path);
  if (!received) return { ok: false, newConnection: fresh, problem: 'the origin did not receive the request' };
  const token = received.headers['x-custom-domain-assertion'];
  if (typeof token !== 'string') return { ok: false, newConnection: fresh, problem: 'no assertion header at the origin' };
  try {
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(site.key.secret), {
      issuer: ASSERTION_ISSUER, audience: site.slug, subject: site.domainId, algorithms: ['HS256'],
    });
    if (protectedHeader.kid !== site.key.kid) throw new Error(`kid ${protectedHeader.kid}, expected ${site.key.kid}`);
    if (payload.hostname !== site.hostname || payload.reference !== site.reference) throw new Error(`claims ${JSON.stringify(payload)}`);
  } catch (err) {
    return { ok: false, newConnection: fresh, problem: `invalid assertion: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { ok: true, newConnection: fresh };
}

/** Requests forwarded for the application as traffic_daily has them. */
async function trafficRequests(applicationId: string): Promise<number> {
  const days = await (store as DataStore).run((r) => r.traffic.range(applicationId, '2000-01-01', '2100-12-31'));
  return days.reduce((sum, day) => sum + day.requests, 0);
}

/** Requests for the site that reached the origin: every one of them is counted by the edge. */
const forwarded = (site: Site): number => origin?.requests.filter((r) => r.headers.host === site.hostname).length ?? 0;

const stopEdge = (signal: NodeJS.Signals): Promise<Exit> => stopProcess(edge as ChildProcess, 40_000, signal);

beforeAll(async () => {
  if (!Number.isFinite(OUTAGE_SECONDS) || OUTAGE_SECONDS <= 0) throw new Error(`EDGE_OUTAGE_SECONDS must be a positive number (got ${process.env.EDGE_OUTAGE_SECONDS})`);
  await waitForBuild(MAIN);
  pg = await startPrivatePostgres();
  store = await createDataStore({ url: pg.url });
  await store.migrate();
  origin = await startRecordingOrigin();
  const ca = new InternalCa(store, DATA_KEY);
  caPem = await ca.certificatePem();
  sites.push(await seedSite('a', true, ca, origin.url), await seedSite('b', false, ca, origin.url));

  vhost = await createVhost();
  await startEdgeProcess(pg.url, vhost.url);
});

// Also after a failure: the edge, the connection, the cluster (stopped and its directory removed).
afterAll(async () => {
  if (edge) await stopEdge('SIGKILL');
  for (const site of sites) site.agent.destroy();
  await origin?.close();
  await store?.close();
  await pg?.remove();
  if (vhost) await deleteVhost(vhost);
});

test(`ready domains keep answering 200 with the database stopped for ${OUTAGE_SECONDS} s; traffic is flushed once it is back`, async () => {
  // Warm the caches: route, certificate (new connections) and signing key per domain.
  for (let i = 0; i < 4; i++) {
    for (const site of sites) {
      const warm = await probe(site, `/warm/${site.label}/${i}`, i % 2 === 0);
      expect(warm.problem ?? 'ok').toBe('ok');
    }
  }
  expect(await controlPlaneReachable()).toBe(true);

  const forwardedBeforeCut = sites.map(forwarded);
  const cluster = pg as PrivatePostgres;
  // The test's own pool would only see its connections die: it is closed over the outage.
  await store?.close();
  store = undefined;
  await cluster.stop('immediate');
  const cutAt = performance.now();
  const sinceCut = () => ((performance.now() - cutAt) / 1000).toFixed(1);
  const failures: string[] = [];
  let sent = 0;
  let ok = 0;
  let newConnections = 0;
  let midway: { readyz: { status: number; body: string }; reachableMetric: string | undefined; controlPlane: ControlPlane } | null = null;

  for (let round = 0; round * INTERVAL_MS < OUTAGE_MS; round++) {
    const wait = cutAt + round * INTERVAL_MS - performance.now();
    if (wait > 0) await sleep(wait);
    const newConnection = round % NEW_CONNECTION_EVERY === 0;
    const at = sinceCut();
    const probes = await Promise.all(sites.map((site) => probe(site, `/outage/${site.label}/${round}`, newConnection)));
    probes.forEach((result, i) => {
      sent += 1;
      if (result.newConnection) newConnections += 1;
      if (result.ok) ok += 1;
      else failures.push(`${sites[i]?.hostname} round ${round} (${newConnection ? 'new' : 'keep-alive'} connection), sent ${at} s after the stop: ${result.problem}`);
    });
    if (midway === null && (round + 1) * INTERVAL_MS >= OUTAGE_MS / 2) {
      const metrics = await ops('/metrics');
      const readyz = await ops('/readyz');
      midway = {
        readyz,
        reachableMetric: metrics.body.split('\n').find((line) => line.startsWith('cds_edge_control_plane_reachable')),
        controlPlane: (JSON.parse(readyz.body) as { control_plane: ControlPlane }).control_plane,
      };
    }
  }
  const outageSeconds = Math.round((performance.now() - cutAt) / 1000);
  // Database accesses the edge tried since the stop, every one failed (the state never turned reachable).
  const atEnd = await controlPlane();
  const refusedDuringOutage = atEnd.reachable ? 0 : atEnd.failures - (midway?.controlPlane.failures ?? 0);
  const forwardedBeforeRestore = sites.map(forwarded);
  // Back on its socket only (the edge, on TCP, is still refused): nothing counted during the outage can be in it yet.
  await cluster.start({ tcp: false });
  store = await createDataStore({ url: cluster.socketUrl });
  const trafficBeforeRestore = await Promise.all(sites.map((site) => trafficRequests(site.applicationId)));
  await store.close();
  store = undefined;
  await cluster.stop('fast');
  console.log(`edge served ${ok}/${sent} requests with the database stopped for ${outageSeconds} s; ${atEnd.failures} database accesses failed meanwhile (last: ${atEnd.last_error})`);

  await cluster.start();
  store = await createDataStore({ url: cluster.url });
  // The edge notices the database is back at its next load, which requests cause. Measured, not only awaited:
  // the probes of each round are part of the result, and the assertions below report everything at once.
  const restoredAt = Date.now();
  let reachableAgain = false;
  while (!reachableAgain && Date.now() - restoredAt < RECONNECT_WITHIN_MS) {
    const probes = await Promise.all(sites.map((site) => probe(site, `/restore/${site.label}/${Date.now()}`, false)));
    probes.forEach((result, i) => {
      if (!result.ok) failures.push(`${sites[i]?.hostname} after the restore: ${result.problem}`);
    });
    reachableAgain = await controlPlaneReachable();
    if (!reachableAgain) await sleep(250);
  }
  const reachableAfterMs = Date.now() - restoredAt;

  // The counts the edge could not write during the outage reach traffic_daily by its periodic flush
  // (a bounded wait whose outcome the assertions below report with the rest).
  const flushDeadline = Date.now() + FLUSH_WITHIN_MS;
  let flushed = await Promise.all(sites.map((site) => trafficRequests(site.applicationId)));
  while (flushed.some((n, i) => n < (forwardedBeforeRestore[i] ?? 0)) && Date.now() < flushDeadline) {
    await sleep(500);
    flushed = await Promise.all(sites.map((site) => trafficRequests(site.applicationId)));
  }

  const exit = await stopEdge('SIGTERM');
  const finalTraffic = await Promise.all(sites.map((site) => trafficRequests(site.applicationId)));
  const outputTail = output.slice(-4000);

  expect({ failures, outputTail: failures.length ? outputTail : '' }).toEqual({ failures: [], outputTail: '' });
  expect(ok).toBe(sent);
  expect(sent).toBeGreaterThanOrEqual(2 * Math.floor(OUTAGE_MS / INTERVAL_MS));
  expect(newConnections).toBeGreaterThanOrEqual(Math.floor(sent / NEW_CONNECTION_EVERY));
  // The edge kept asking the database (reloads past the hard TTLs), in the second half of the outage too, and was refused each time.
  expect(refusedDuringOutage).toBeGreaterThan(0);
  expect(midway?.controlPlane.failures).toBeGreaterThan(0);
  expect(atEnd.last_error).toMatch(/ECONNREFUSED/);

  expect(midway?.readyz.status).toBe(200);
  expect(JSON.parse(midway?.readyz.body ?? '{}')).toMatchObject({ ready: true, control_plane: { reachable: false } });
  expect(midway?.reachableMetric).toBe('cds_edge_control_plane_reachable 0');

  expect(reachableAgain).toBe(true);
  expect(reachableAfterMs).toBeLessThanOrEqual(RECONNECT_WITHIN_MS);
  trafficBeforeRestore.forEach((n, i) => expect(n).toBeLessThanOrEqual(forwardedBeforeCut[i] ?? Number.NaN));
  flushed.forEach((n, i) => expect(n).toBeGreaterThanOrEqual(forwardedBeforeRestore[i] ?? Number.NaN));

  expect(exit).toEqual({ code: 0, signal: null });
  // Exactly what reached the origin, nothing lost and nothing counted twice.
  expect(finalTraffic).toEqual(sites.map(forwarded));
}, OUTAGE_MS + 120_000); // the outage lasts EDGE_OUTAGE_SECONDS (5 min by default), past any global timeout
