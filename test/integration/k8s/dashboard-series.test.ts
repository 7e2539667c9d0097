// The dashboards against real data: a real Prometheus (Debian's prometheus
// package) scrapes a split deployment — the four services started from their
// built dist/main.js over PostgreSQL and RabbitMQ, under the job names the
// ServiceMonitors give them — and every series selector a dashboard panel
// queries (metric name and label matchers) must be known to Prometheus's
// /api/v1/series after a little traffic: an application and a domain created
// through the API, a request through the edge.
//
// Some families only get a series from work this test does not do (listed in
// NEEDS_MORE_WORK with why). For those, the test holds the family to exist in
// its service's /metrics exposition (HELP and TYPE lines) and fails if one of
// them does appear in Prometheus, so the list stays honest.
//
// The alert rules' selectors are held to the same: a job matcher naming the
// wrong service would leave an alert that never fires.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDataStore } from '@cds/data';
import { connectTestClient } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { freePort } from '../../support/free-port';
import { CHART, ROOT, yamlDocuments } from '../../support/k8s-tools';
import { dashboardQueries, seriesSelectors, type PanelQuery } from '../../support/promql';
import { stopProcess, waitForBuild } from '../../support/service-process';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { createVhost, deleteVhost, type TestVhost } from '../messaging/rabbit';

/** Scrape jobs: the names the ServiceMonitors give (the dashboards select on them) and each service's entry point. */
const SERVICES = {
  api: 'services/api/dist/main.js',
  checker: 'services/checker/dist/main.js',
  'webhook-dispatcher': 'services/webhook-dispatcher/dist/main.js',
  'edge-proxy': 'services/edge-proxy/dist/main.js',
} as const;
type Job = keyof typeof SERVICES;
const JOBS = Object.keys(SERVICES) as Job[];

/**
 * The namespace label the ServiceMonitors' targets carry, given to the scrape
 * targets here; the dashboards select it through their $namespace variable.
 */
const NAMESPACE = 'cds-dashboards';

/** Families that stay without samples here: the selector (without the dashboards' namespace matcher), and what it needs. */
const NEEDS_MORE_WORK: Record<string, string> = {
  'cds_http_requests_total{job="api",server="api",status=~"5.."}': 'a 5xx answer of the API, which a healthy deployment does not give',
  'cds_metrics_source_errors_total{job="api"}': 'a failed read of a database-backed gauge (the database down or slow)',
  'cds_edge_response_bytes_total{job="edge-proxy"}': 'an answer proxied from an origin: a domain that is ready, with a certificate and a reachable origin',
  'cds_acme_directory_orders_total{job="checker"}': 'a checker with CERT_ISSUER=acme, whose directories get their series (this one signs with the internal CA)',
  'cds_acme_directory_set_aside{job="checker"}': 'a checker with CERT_ISSUER=acme, whose directories get their series (this one signs with the internal CA)',
};

const SCRAPE_INTERVAL_S = 1;

interface Service {
  job: Job;
  child: ChildProcess;
  metricsPort: number;
  output: () => string;
}

async function startService(job: Job, env: Record<string, string>): Promise<Service> {
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, SERVICES[job])], {
    env: { PATH: process.env.PATH ?? '', ...env, METRICS_PORT: String(metricsPort), BIND_ADDRESS: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (text += c.toString()));
  const output = () => `${job}: ${text}`;
  await eventually(`${job} to be ready`, async () => {
    if (child.exitCode !== null) throw new Error(`${job} exited with ${child.exitCode}:\n${text}`);
    return fetch(`http://127.0.0.1:${metricsPort}/readyz`).then((r) => r.status === 200, () => false); // refused: not listening yet
  }, { timeoutMs: 30_000, intervalMs: 200, explain: output });
  return { job, child, metricsPort, output };
}

/** Status of a plain-HTTP GET with the given Host header (fetch cannot set Host). */
function plainGet(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

function prometheusConfig(services: readonly Service[]): string {
  const jobs = services.map((s) => `  - job_name: ${s.job}\n    static_configs:\n      - targets: ['127.0.0.1:${s.metricsPort}']\n        labels: { namespace: ${NAMESPACE} }\n`);
  return `global:\n  scrape_interval: ${SCRAPE_INTERVAL_S}s\n  scrape_timeout: ${SCRAPE_INTERVAL_S}s\nscrape_configs:\n${jobs.join('')}`;
}

interface ApiAnswer<T> {
  status: string;
  data: T;
  error?: string;
}

let db: TestDatabase;
let vhost: TestVhost;
let dir: string;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;
let prometheusOutput = '';
const services: Service[] = [];

async function promApi<T>(pathAndQuery: string): Promise<T> {
  const answer = (await (await fetch(`${prometheusUrl}${pathAndQuery}`)).json()) as ApiAnswer<T>;
  if (answer.status !== 'success') throw new Error(`prometheus ${pathAndQuery}: ${answer.error ?? answer.status}`);
  return answer.data;
}

/** The series Prometheus knows for a selector over the last ten minutes. */
const seriesOf = (selector: string) => promApi<Array<Record<string, string>>>(`/api/v1/series?match[]=${encodeURIComponent(selector)}&start=${Math.floor(Date.now() / 1000) - 600}`);

beforeAll(async () => {
  for (const main of Object.values(SERVICES)) await waitForBuild(path.join(ROOT, main));
  dir = mkdtempSync(path.join(tmpdir(), 'cds-dashboards-'));
  // Split mode shares PostgreSQL whatever TEST_DATABASE names (DECISIONS §1).
  db = await createTestDatabase('postgres');
  const store = await createDataStore({ url: db.url });
  await store.migrate();
  await store.close();
  vhost = await createVhost();
  const [apiPort, httpPort, httpsPort, deadDns] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const operatorToken = randomBytes(24).toString('base64url');
  const env = {
    DATABASE_URL: db.url,
    AMQP_URL: vhost.url,
    OPERATOR_TOKEN: operatorToken,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'error',
    // No certificate authority and no resolver outside the machine: the checker's checks fail here, quickly.
    CERT_ISSUER: 'internal',
    DNS_SERVERS: `127.0.0.1:${deadDns}`,
    API_PORT: String(apiPort),
    EDGE_HTTP_PORT: String(httpPort),
    EDGE_HTTPS_PORT: String(httpsPort),
  };
  for (const job of JOBS) services.push(await startService(job, env));

  // Traffic: API requests (the HTTP histograms), a domain (outbox → broker → the checker's and the edge cache's consumers), edge requests.
  const api = await connectTestClient(`http://127.0.0.1:${apiPort}`, operatorToken);
  const { key } = await api.createApplication();
  const domain = await api.request('POST', '/v1/domains', { token: key, body: { hostname: 'shop.example.com', reference: 'dashboards' } });
  if (domain.status !== 201) throw new Error(`create domain: ${domain.status} ${domain.text}`);
  expect((await api.request('GET', '/v1/domains', { token: key })).status).toBe(200);
  expect(await plainGet(httpPort, 'nobody-registered.example')).toBe(404);
  await plainGet(httpPort, 'shop.example.com');
  // Past V1_AUTH_FAILURES_PER_MINUTE (20) invalid credentials the throttle answers 429 (the limiter rejection series); last, as it blocks /v1 from this address for a minute.
  const statuses: number[] = [];
  for (let i = 0; i < 22; i++) statuses.push((await api.request('GET', '/v1/domains', { token: `cd_${'x'.repeat(43)}`, unchecked: true })).status);
  expect(statuses.at(-1)).toBe(429);

  const prometheusPort = await freePort();
  prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
  writeFileSync(path.join(dir, 'prometheus.yml'), prometheusConfig(services));
  prometheus = spawn('prometheus', [
    `--config.file=${path.join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${path.join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${prometheusPort}`,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  prometheus.on('error', (err) => (prometheusOutput += `\n${err.message} (install it: bash scripts/ensure-services.sh)`));
  prometheus.stdout?.on('data', (c: Buffer) => (prometheusOutput += c.toString()));
  prometheus.stderr?.on('data', (c: Buffer) => (prometheusOutput += c.toString()));
  // A couple of scrapes of every service, each of them up.
  await eventually('three successful scrapes of each service', async () => {
    if (prometheus?.exitCode !== null) throw new Error(`prometheus exited:\n${prometheusOutput}`);
    const scrapes = await promApi<{ result: Array<{ metric: { job: string }; value: [number, string] }> }>(
      `/api/v1/query?query=${encodeURIComponent('sum by (job) (sum_over_time(up[1m]))')}`,
    ).catch(() => ({ result: [] }));
    const byJob = new Map(scrapes.result.map((r) => [r.metric.job, Number(r.value[1])]));
    return JOBS.every((job) => (byJob.get(job) ?? 0) >= 3);
  }, { timeoutMs: 60_000, intervalMs: 500, explain: () => prometheusOutput.slice(-2000) });
});

afterAll(async () => {
  if (prometheus) await stopProcess(prometheus, 10_000);
  await Promise.all(services.map((s) => stopProcess(s.child, 15_000)));
  if (vhost) await deleteVhost(vhost);
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every alert rule's expression, as PanelQuery (`alert <name>`). */
function alertQueries(): PanelQuery[] {
  const [rules] = yamlDocuments<{ groups: Array<{ rules: Array<{ alert?: string; expr: string }> }> }>(readFileSync(path.join(CHART, 'files/alerts.yaml'), 'utf8'));
  return (rules?.groups ?? []).flatMap((g) => g.rules.flatMap((r) => (r.alert ? [{ where: `alert ${r.alert}`, expr: r.expr }] : [])));
}

/** How NEEDS_MORE_WORK names a selector: without the dashboards' namespace matcher. */
const listed = (selector: string) => selector.replace('namespace="$namespace",', '');
/** The selector Prometheus is asked about: the dashboards' $namespace is the targets' namespace label. */
const concrete = (selector: string) => selector.replaceAll('$namespace', NAMESPACE);

describe('dashboards and alert rules against a real Prometheus scraping a split deployment', () => {
  const queries = dashboardQueries(path.join(CHART, 'files/dashboards'));
  const all = [...queries, ...alertQueries()];
  const selectors = [...new Map(all.flatMap((q) => seriesSelectors(q.expr).map((s) => [s.selector, { ...s, where: q.where }]))).values()];

  it('reads selectors out of every panel of the four dashboards and every alert rule', () => {
    expect(new Set(queries.map((q) => q.where.split(':')[0]))).toEqual(new Set(JOBS.map((j) => `${j}.json`)));
    expect(all.every((q) => seriesSelectors(q.expr).length > 0)).toBe(true);
    expect(all.length - queries.length).toBeGreaterThan(10);
  });

  it('Prometheus scrapes every service', async () => {
    const targets = await promApi<{ activeTargets: Array<{ labels: { job: string }; health: string; lastError: string }> }>('/api/v1/targets');
    expect(targets.activeTargets.map((t) => [t.labels.job, t.health, t.lastError]).sort()).toEqual(JOBS.map((j) => [j, 'up', '']).sort());
  });

  it('has a series for every selector a panel or an alert queries, but those that need more work', async () => {
    const missing: string[] = [];
    for (const { selector, where } of selectors) if ((await seriesOf(concrete(selector))).length === 0) missing.push(`${listed(selector)} (${where})`);
    const unexplained = missing.filter((m) => !(m.split(' (')[0] as string in NEEDS_MORE_WORK));
    expect(unexplained).toEqual([]);
    // The list stays honest: whatever it names is indeed still without a series.
    expect(Object.keys(NEEDS_MORE_WORK).filter((s) => !missing.some((m) => m.startsWith(`${s} (`)))).toEqual([]);
  });

  it('exposes the families of the selectors that need more work, with HELP and TYPE', async () => {
    for (const selector of Object.keys(NEEDS_MORE_WORK)) {
      const [name = ''] = seriesSelectors(selector).map((s) => s.name);
      const family = name.replace(/_(bucket|sum|count)$/, '');
      const job = /job="([^"]+)"/.exec(selector)?.[1] as Job | undefined;
      const exposing = services.filter((s) => !job || s.job === job);
      const texts = await Promise.all(exposing.map((s) => fetch(`http://127.0.0.1:${s.metricsPort}/metrics`).then((r) => r.text())));
      const described = texts.some((t) => t.includes(`# HELP ${family} `) && new RegExp(`^# TYPE ${family} \\w+$`, 'm').test(t));
      expect([selector, described]).toEqual([selector, true]);
    }
  });
});
