// The monitoring objects as a shared Prometheus needs them: ServiceMonitors and
// the PrometheusRule carry the labels its selectors match (kube-prometheus-stack:
// `release`), alerts link absolute runbook URLs, and the dashboards and alert
// rules keep installs in different namespaces apart (dashboards select the
// namespace, alerts group by it; every selector names its job).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { CHART, mergedValues, ofKind, renderChart, writeValues, yamlDocuments, type K8sObject } from '../../support/k8s-tools';
import { dashboardQueries, seriesSelectors } from '../../support/promql';

const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as object;
const validateValues = new Ajv({ strict: false, allErrors: true }).compile(schema);
const MONITORED = 'ci/existing-secret-values.yaml';
const DEFAULT_RUNBOOKS = 'https://github.com/example/custom-domain-service/blob/main';

interface Rule {
  alert: string;
  expr: string;
  annotations: Record<string, string>;
}

const rulesOf = (objects: readonly K8sObject[]) =>
  ofKind(objects, 'PrometheusRule').flatMap((r) => (r.spec as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules));
const fileRules = () =>
  (yamlDocuments<{ groups: Array<{ rules: Rule[] }> }>(readFileSync(path.join(CHART, 'files/alerts.yaml'), 'utf8'))[0]?.groups ?? []).flatMap((g) => g.rules);

describe('labels Prometheus selects the monitoring objects by', () => {
  it("ci/existing-secret-values.yaml: kube-prometheus-stack's release label on every ServiceMonitor and the PrometheusRule", () => {
    const objects = renderChart([MONITORED]).map((r) => r.object);
    const labelled = [...ofKind(objects, 'ServiceMonitor'), ...ofKind(objects, 'PrometheusRule')];
    expect(labelled).toHaveLength(5);
    for (const o of labelled) expect([o.kind, o.metadata.name, o.metadata.labels?.release]).toEqual([o.kind, o.metadata.name, 'kube-prometheus-stack']);
  });

  it('each kind takes its own labels, beside the chart\'s own', () => {
    const values = writeValues('metrics:\n  serviceMonitor: { enabled: true, labels: { team: edge, release: prom-a } }\n  prometheusRule: { enabled: true, labels: { release: prom-b } }\n');
    const objects = renderChart(['ci/minimal-values.yaml', values]).map((r) => r.object);
    for (const m of ofKind(objects, 'ServiceMonitor')) {
      expect(m.metadata.labels).toMatchObject({ team: 'edge', release: 'prom-a', 'app.kubernetes.io/instance': 'release' });
    }
    const [rule] = ofKind(objects, 'PrometheusRule');
    expect(rule?.metadata.labels).toMatchObject({ release: 'prom-b', 'app.kubernetes.io/instance': 'release' });
    expect(rule?.metadata.labels?.team).toBeUndefined();
  });
});

describe('runbook URLs', () => {
  it('every rendered alert links an absolute runbook_url: the base value, then the page and heading its rule names', () => {
    const rendered = rulesOf(renderChart([MONITORED]).map((r) => r.object));
    const byAlert = new Map(fileRules().map((r) => [r.alert, r.annotations.runbook]));
    expect(rendered.length).toBe(byAlert.size);
    for (const { alert, annotations } of rendered) {
      expect({ alert, url: annotations.runbook_url, runbook: annotations.runbook }).toEqual({ alert, url: `${DEFAULT_RUNBOOKS}/${byAlert.get(alert)}`, runbook: undefined });
      expect(new URL(annotations.runbook_url ?? '').hash).toMatch(/^#[a-z0-9-]+$/);
    }
  });

  it('follow metrics.prometheusRule.runbookBaseUrl (a trailing slash or not)', () => {
    const values = writeValues('metrics:\n  prometheusRule:\n    enabled: true\n    runbookBaseUrl: https://wiki.example.internal/cds/\n');
    const rendered = rulesOf(renderChart(['ci/minimal-values.yaml', values]).map((r) => r.object));
    expect(rendered.find((r) => r.alert === 'CdsServiceDown')?.annotations.runbook_url).toBe('https://wiki.example.internal/cds/docs/deploy.md#cdsservicedown');
    expect(rendered.every((r) => r.annotations.runbook_url?.startsWith('https://wiki.example.internal/cds/docs/'))).toBe(true);
  });

  it('values.schema.json takes an http(s) base URL only', () => {
    const valid = (base: string) => validateValues(mergedValues(['ci/minimal-values.yaml', writeValues(`metrics:\n  prometheusRule:\n    runbookBaseUrl: "${base}"\n`)]));
    expect(valid('https://docs.example.com/cds')).toBe(true);
    expect(valid('docs')).toBe(false);
    expect(valid('')).toBe(false);
  });
});

describe('namespaces and jobs', () => {
  it('every alert selector names its job, and every aggregation keeps the namespace', () => {
    const rules = fileRules();
    const unnamed = rules.flatMap((r) => seriesSelectors(r.expr).filter((s) => !/^[^{]+\{job=~?"/.test(s.selector)).map((s) => `${r.alert}: ${s.selector}`));
    expect(unnamed).toEqual([]);
    // absent() has no series to group by: the chart names the namespace there (chart.test.ts).
    const aggregations = rules.filter((r) => r.alert !== 'CdsServiceDown').flatMap((r) => [...r.expr.matchAll(/\b(sum|max|min|avg|count)\b\s*(by\s*\(([^)]*)\))?\s*\(/g)].map((m) => ({ alert: r.alert, by: m[3] ?? '' })));
    expect(aggregations.length).toBeGreaterThan(20);
    expect(aggregations.filter((a) => !a.by.split(',').map((l) => l.trim()).includes('namespace'))).toEqual([]);
  });

  it('every dashboard panel selects the dashboard\'s namespace and a job', () => {
    const queries = dashboardQueries(path.join(CHART, 'files/dashboards'));
    expect(queries.length).toBeGreaterThan(40);
    const unselected = queries.flatMap((q) => seriesSelectors(q.expr).filter((s) => !/^[^{]+\{namespace="\$namespace",job=~?"/.test(s.selector)).map((s) => `${q.where}: ${s.selector}`));
    expect(unselected).toEqual([]);
  });

  it('every dashboard offers the namespaces its service runs in', () => {
    const dir = path.join(CHART, 'files/dashboards');
    for (const file of readdirSync(dir)) {
      const board = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { templating: { list: Array<{ name: string; type: string; query?: { query: string } }> } };
      const variable = board.templating.list.find((v) => v.name === 'namespace');
      const job = file.replace(/\.json$/, '');
      expect({ file, type: variable?.type, query: variable?.query?.query }).toEqual({ file, type: 'query', query: `label_values(process_start_time_seconds{job="${job}"}, namespace)` });
    }
  });
});
