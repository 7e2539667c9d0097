// The API's own metrics: requests by route template and status, limiter
// rejections by limiter, and the database gauges read at scrape time.
import { randomUUID } from 'node:crypto';
import { registry, watchDatabase } from '@cds/metrics';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { execSql } from '../../support/raw-sql';
import { aDomain, anApplication, checksFor } from '../data/data-fixtures';

/** The value of one series in the registry's text, 0 when absent. */
async function sample(name: string, labels: string): Promise<number> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `) || (labels === '' && l.startsWith(`${name} `)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('API metrics', () => {
  let api: TestApi;
  let key: string;

  beforeAll(async () => {
    api = await startTestApi({ V1_AUTH_FAILURES_PER_MINUTE: '2' });
    key = (await api.createApplication(undefined, { api_requests_per_minute: 1000 })).key;
  });
  afterAll(() => api?.close());

  it('labels requests with the route template and status, never the raw path', async () => {
    const id = randomUUID();
    const labels = 'server="api",method="GET",route="/v1/domains/{domain_id}",status="404"';
    const before = await sample('cds_http_requests_total', labels);
    expect((await api.request('GET', `/v1/domains/${id}`, { token: key })).status).toBe(404);
    expect(await sample('cds_http_requests_total', labels)).toBe(before + 1);
    expect(await sample('cds_http_request_duration_seconds_count', labels)).toBe(before + 1);
    const text = await registry.metrics();
    expect(text).not.toContain(id);
    await api.request('GET', '/no/such/path', { unchecked: true });
    expect(await sample('cds_http_requests_total', 'server="api",method="GET",route="unmatched",status="404"')).toBeGreaterThanOrEqual(1);
  });

  it('counts rejections of the recheck limiter', async () => {
    const created = await api.request('POST', '/v1/domains', { token: key, body: { hostname: `shop-${randomUUID().slice(0, 8)}.example.com`, reference: 'r1' } });
    expect(created.status).toBe(201);
    const path = `/v1/domains/${created.body.id as string}/checks`;
    expect((await api.request('POST', path, { token: key })).status).toBe(202);
    expect((await api.request('POST', path, { token: key })).status).toBe(429);
    expect(await sample('cds_limiter_rejections_total', 'server="api",limiter="recheck"')).toBe(1);
    expect(await sample('cds_limiter_rejections_total', 'server="api",limiter="auth_failures"')).toBe(0);
  });

  it('counts rejections of the per-credential request budget as api_requests, not as failed credentials', async () => {
    const tight = (await api.createApplication(undefined, { api_requests_per_minute: 1 })).key;
    const before = await sample('cds_limiter_rejections_total', 'server="api",limiter="api_requests"');
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push((await api.request('GET', '/v1/domains', { token: tight })).status);
    // One minute boundary may fall between them, so at least one of the three is refused.
    const refused = answers.filter((status) => status === 429).length;
    expect(answers[0]).toBe(200);
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(await sample('cds_limiter_rejections_total', 'server="api",limiter="api_requests"')).toBe(before + refused);
    expect(await sample('cds_limiter_rejections_total', 'server="api",limiter="auth_failures"')).toBe(0);
  });

  it('counts rejections of the invalid-credential throttle', async () => {
    const bad = `cd_${'Z'.repeat(43)}`;
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push((await api.request('GET', '/v1/domains', { token: bad })).status);
    expect(answers).toEqual([401, 401, 429]);
    expect(await sample('cds_limiter_rejections_total', 'server="api",limiter="auth_failures"')).toBe(1);
  });

  it('reads the outbox backlog from the database at scrape time', async () => {
    watchDatabase(api.store, { maxAgeMs: 0 });
    // No relay runs here: the domain created above left its outbox rows unpublished.
    const rows = (await api.store.run((r) => r.outbox.all())).filter((row) => row.publishedAt === null).length;
    expect(rows).toBeGreaterThan(0);
    expect(await sample('cds_outbox_backlog', '')).toBe(rows);
    expect(await sample('cds_outbox_oldest_age_seconds', '')).toBeGreaterThan(0);
  });

  it('reads the ready domains confirming a check failure from the database at scrape time', async () => {
    watchDatabase(api.store, { maxAgeMs: 0 });
    expect((await registry.metrics()).split('\n')).toContain('cds_domains_confirming 0');
    const app = anApplication();
    await api.store.run((r) => r.applications.insert(app));
    const domains = [aDomain(app.id, { status: 'ready' }), aDomain(app.id, { status: 'ready' }), aDomain(app.id, { status: 'attention_required' })];
    for (const domain of domains) await api.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    const [confirming, , attention] = domains.map((d) => d.id);
    // As the checker leaves them (DECISIONS §11): a streak on a ready domain's checks is a failure being confirmed.
    await execSql(api.config.databaseUrl, [
      `UPDATE domain_checks SET failed_runs = 2 WHERE domain_id IN ('${confirming}', '${attention}') AND type IN ('routing', 'origin')`,
    ]);
    expect(await sample('cds_domains_confirming', '')).toBe(1);
  });
});
