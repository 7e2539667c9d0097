// Every metric the dashboards and alert rules query exists on a running
// service's /metrics: the built all-in-one process, scraped over HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../../support/eventually';
import { freePort } from '../../support/free-port';
import { CHART, ROOT } from '../../support/k8s-tools';
import { metricNames } from '../../support/promql';

function dashboardExpressions(): Array<{ where: string; expr: string }> {
  const dir = path.join(CHART, 'files/dashboards');
  return readdirSync(dir).flatMap((file) => {
    const board = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    return board.panels.flatMap((p) => p.targets.map((t) => ({ where: `${file}: ${p.title}`, expr: t.expr })));
  });
}

function alertExpressions(): Array<{ where: string; expr: string }> {
  const text = readFileSync(path.join(CHART, 'files/alerts.yaml'), 'utf8');
  return [...text.matchAll(/- alert: (\S+)\n\s+expr: (.+)/g)].map((m) => ({ where: `alert ${m[1]}`, expr: m[2] ?? '' }));
}

/** Names of the series a scrape offers: every `# TYPE` family, with a histogram's _bucket, _sum and _count. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name = '', type] = m;
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
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

async function waitReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  await eventually('the all-in-one process to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`all-in-one exited with ${child.exitCode}: ${output()}`);
    return fetch(url).then((r) => r.status === 200, () => false); // refused: not listening yet
  }, { timeoutMs: 60_000, intervalMs: 200, explain: output });
}

describe('metric names in dashboards and alert rules', () => {
  let child: ChildProcess;
  let dir: string;
  let scraped: Set<string>;
  let text: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'cds-metrics-'));
    const [api, metrics, http, https] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH, HOME: process.env.HOME,
      API_PORT: String(api), METRICS_PORT: String(metrics), EDGE_HTTP_PORT: String(http), EDGE_HTTPS_PORT: String(https),
      DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, LOG_LEVEL: 'error',
    };
    let output = '';
    child = spawn('node', [path.join(ROOT, 'services/all-in-one/dist/main.js')], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await waitReady(`http://127.0.0.1:${metrics}/readyz`, child, () => output);
    // One API request and one edge request for a hostname nobody registered, so the HTTP and edge families carry samples too.
    expect((await fetch(`http://127.0.0.1:${api}/v1/domains`)).status).toBe(401);
    expect(await plainGet(http, 'nobody-registered.example')).toBe(404);
    const answer = await fetch(`http://127.0.0.1:${metrics}/metrics`);
    expect(answer.headers.get('content-type')).toContain('text/plain');
    text = await answer.text();
    expect(text).toMatch(/^cds_http_requests_total\{server="api",method="GET",route="\/v1\/domains",status="401"\} 1$/m);
    scraped = exposedNames(text);
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads metric names out of PromQL', () => {
    expect(metricNames('histogram_quantile(0.95, sum by (le, route) (rate(cds_x_bucket{job="api",a=~"5.."}[5m]))) > 1')).toEqual(['cds_x_bucket']);
    expect(metricNames('absent(up{job="a"}) or max(b) / sum(increase(c_total[10m]))')).toEqual(['up', 'b', 'c_total']);
  });

  // The checker, the dispatcher and the edge's cache consumer run in this process: their series exist before a first check, delivery or message.
  it.each([
    'cds_checks_total{check="certificate",result="failing"} 0',
    'cds_check_duration_seconds_count{check="origin"} 0',
    'cds_acme_orders_total{result="issued"} 0',
    'cds_acme_order_failures_total{reason="caa_forbids_issuance"} 0',
    'cds_certificate_expiry_timestamp_seconds 0',
    'cds_messages_consumed_total{consumer="checker",outcome="retry"} 0',
    'cds_consumer_lag_seconds_count{consumer="webhook-dispatcher"} 0',
    'cds_webhook_deliveries_total{state="abandoned"} 0',
    'cds_webhook_delivery_duration_seconds_count{state="delivered"} 0',
    'cds_messages_consumed_total{consumer="edge-cache",outcome="ack"} 0',
    'cds_messages_consumed_total{consumer="edge-cache",outcome="dead_letter"} 0',
    'cds_outbox_set_aside_total 0',
    'cds_housekeeping_deleted_rows_total{table="webhook_deliveries"} 0',
    'cds_housekeeping_interval_seconds 600',
    'cds_consumer_lag_seconds_count{consumer="edge-cache"} 0',
    'cds_check_unconfirmed_failures_total{check="origin",kind="inconclusive"} 0',
    'cds_check_confirmed_failures_total{check="routing"} 0',
    'cds_domains_confirming 0',
  ])('shows %s before any work', (series) => {
    expect(text.split('\n')).toContain(series);
  });

  // The edge runs here too: an unknown hostname counts under application "-"; limiter and cache series start at zero.
  it.each([
    'cds_edge_requests_total{application="-",status_class="4xx"} 1',
    'cds_edge_request_duration_seconds_count{status_class="4xx"} 1',
    'cds_cache_lookups_total{cache="route",result="miss"} 1',
    'cds_cache_lookups_total{cache="certificate",result="hit"} 0',
    'cds_limiter_rejections_total{server="edge",limiter="proxied_requests_per_second"} 0',
    'cds_limiter_rejections_total{server="edge",limiter="proxied_requests_per_minute"} 0',
    'cds_edge_control_plane_reachable 1',
  ])('shows %s after one request for an unknown hostname', (series) => {
    expect(text.split('\n')).toContain(series);
  });

  it('has dashboards that query the checker, dispatcher and edge families', () => {
    const used = new Set(dashboardExpressions().flatMap(({ expr }) => metricNames(expr)));
    for (const name of [
      'cds_checks_total', 'cds_check_unconfirmed_failures_total', 'cds_check_confirmed_failures_total', 'cds_domains_confirming', 'cds_acme_orders_total', 'cds_certificate_expiry_timestamp_seconds', 'cds_consumer_lag_seconds_bucket', 'cds_webhook_deliveries_total', 'cds_webhook_delivery_duration_seconds_bucket',
      'cds_edge_requests_total', 'cds_edge_response_bytes_total', 'cds_edge_request_duration_seconds_bucket', 'cds_cache_lookups_total', 'cds_limiter_rejections_total', 'cds_edge_control_plane_reachable',
    ]) {
      expect([name, used.has(name)]).toEqual([name, true]);
    }
  });

  it('has alert rules on the edge and on domains confirming a failure', () => {
    const used = new Set(alertExpressions().flatMap(({ expr }) => metricNames(expr)));
    for (const name of ['cds_edge_control_plane_reachable', 'cds_edge_requests_total', 'cds_edge_request_duration_seconds_bucket', 'cds_domains_confirming']) {
      expect([name, used.has(name)]).toEqual([name, true]);
    }
  });

  it.each([
    ['dashboards', dashboardExpressions],
    ['alert rules', alertExpressions],
  ])('finds every metric the %s use', (_what, expressions) => {
    const list = expressions();
    expect(list.length).toBeGreaterThan(3);
    const missing = list.flatMap(({ where, expr }) => metricNames(expr).filter((n) => !scraped.has(n)).map((n) => `${where}: ${n}`));
    expect(missing).toEqual([]);
  });
});
