// The Helm chart and the kustomize tree render offline into objects that pass
// the Kubernetes (and Prometheus Operator) schemas; values are checked by values.schema.json.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { CHART, kustomize, mergedValues, ofKind, renderChart, renderFailure, ROOT, validateObjects, writeValues, type K8sObject } from '../../support/k8s-tools';

const VALUE_FILES = ['ci/minimal-values.yaml', 'ci/existing-secret-values.yaml', 'ci/all-variables-values.yaml'];

const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as object;
const validateValues = new Ajv({ strict: false, allErrors: true }).compile(schema);

interface Container {
  name: string;
  command?: string[];
  args?: string[];
  resources?: { requests?: object; limits?: object };
  livenessProbe?: { httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  env?: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string } } }>;
}
interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean };
}
const podSpec = (o: K8sObject) => (o.spec as { template: { spec: PodSpec } }).template.spec;
const replicasOf = (o: K8sObject) => (o.spec as { replicas?: number }).replicas;
/** Each HorizontalPodAutoscaler as [target, minReplicas, maxReplicas]; each Deployment as [name, replicas]. */
const autoscaling = (objects: K8sObject[]) => ofKind(objects, 'HorizontalPodAutoscaler')
  .map((h) => h.spec as { minReplicas: number; maxReplicas: number; scaleTargetRef: { name: string } })
  .map((h) => [h.scaleTargetRef.name, h.minReplicas, h.maxReplicas]);
const deploymentReplicas = (objects: K8sObject[]) => ofKind(objects, 'Deployment').map((d) => [d.metadata.name, replicasOf(d)]);

interface AlertRule {
  alert: string;
  expr: string;
}
const alertRules = (objects: readonly K8sObject[]) =>
  ofKind(objects, 'PrometheusRule').flatMap((r) => (r.spec as { groups: Array<{ rules: AlertRule[] }> }).groups.flatMap((g) => g.rules));

describe('Helm chart', () => {
  it('refuses to render without EDGE_TARGET or the secret settings and names the missing value', () => {
    expect(renderFailure([])).toContain('config.EDGE_TARGET is required: the hostname customers point their CNAME at');
    expect(renderFailure([writeValues('config:\n  EDGE_TARGET: " "\n')])).toContain('config.EDGE_TARGET is required');
    expect(renderFailure([writeValues('config:\n  EDGE_TARGET: edge.saas.example.com\n')])).toContain('secrets.DATABASE_URL is required (or set secrets.existingSecret)');
  });

  it('values.schema.json requires EDGE_TARGET: no default, and a hostname', () => {
    expect((mergedValues([]).config as Record<string, unknown>).EDGE_TARGET).toBe('');
    const secretsOnly = writeValues(`secrets:\n  existingSecret: cds-secrets\n`);
    expect(validateValues(mergedValues([secretsOnly]))).toBe(false);
    expect(validateValues.errors?.map((e) => `${e.instancePath} ${e.message ?? ''}`)).toContainEqual(expect.stringContaining('/config/EDGE_TARGET'));
    expect(validateValues(mergedValues([secretsOnly, writeValues('config:\n  EDGE_TARGET: "edge saas"\n')]))).toBe(false);
    expect(validateValues(mergedValues([secretsOnly, writeValues('config:\n  EDGE_TARGET: edge.saas.example.com\n')]))).toBe(true);
  });

  it('renders its defaults from values.yaml plus only EDGE_TARGET and the required secrets (ci/minimal-values.yaml)', () => {
    const defaults = mergedValues([]);
    const minimal = mergedValues(['ci/minimal-values.yaml']);
    expect({ ...minimal, secrets: null, config: null }).toEqual({ ...defaults, secrets: null, config: null });
    const changed = (key: 'config' | 'secrets') => {
      const [given, unset] = [minimal[key], defaults[key]] as Array<Record<string, string>>;
      return Object.keys(given ?? {}).filter((k) => given?.[k] !== unset?.[k]).sort();
    };
    expect(changed('config')).toEqual(['EDGE_TARGET']);
    expect(changed('secrets')).toEqual(['DATABASE_URL', 'AMQP_URL', 'OPERATOR_TOKEN', 'DATA_ENCRYPTION_KEY', 'ASSERTION_DEPLOYMENT_KEY'].sort());
  });

  it.each(VALUE_FILES)('renders %s into valid objects from values its schema accepts', (file) => {
    const values = mergedValues([file]);
    expect(validateValues(values) ? [] : validateValues.errors).toEqual([]);
    const objects = renderChart([file]).map((r) => r.object);
    expect(objects.length).toBeGreaterThan(10);
    expect(validateObjects(objects)).toEqual([]);
  });

  it.each(VALUE_FILES)('%s: each service has its arguments, probes, limits and a preStop sleep', (file) => {
    const deployments = ofKind(renderChart([file]).map((r) => r.object), 'Deployment');
    // args, not command: the image's ENTRYPOINT (tini) stays (image-entrypoint.test.ts).
    expect(deployments.map((d) => podSpec(d).containers[0]?.command)).toEqual([undefined, undefined, undefined, undefined]);
    expect(deployments.map((d) => podSpec(d).containers[0]?.args)).toEqual([
      ['node', 'services/api/dist/main.js'],
      ['node', 'services/checker/dist/main.js'],
      ['node', 'services/webhook-dispatcher/dist/main.js'],
      ['node', '--max-semi-space-size=32', 'services/edge-proxy/dist/main.js'],
    ]);
    for (const deployment of deployments) {
      const spec = podSpec(deployment);
      const [container] = spec.containers;
      expect(container?.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
      expect(container?.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
      expect(container?.resources?.requests).toBeDefined();
      expect(container?.resources?.limits).toBeDefined();
      expect(spec.securityContext?.runAsNonRoot).toBe(true);
      // The grace period that follows from it: shutdown-grace.test.ts.
      expect(Number(container?.lifecycle?.preStop?.exec?.command[1])).toBeGreaterThan(0);
    }
  });

  it('writes the Secret before the migration Job runs cdctl migrate', () => {
    const objects = renderChart(['ci/minimal-values.yaml']).map((r) => r.object);
    const [secret] = ofKind(objects, 'Secret');
    const [job] = ofKind(objects, 'Job');
    expect(job?.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(secret?.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(Number(secret?.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(Number(job?.metadata.annotations?.['helm.sh/hook-weight']));
    expect(podSpec(job as K8sObject).containers[0]?.command).toBeUndefined();
    expect(podSpec(job as K8sObject).containers[0]?.args).toEqual(['cdctl', 'migrate']);
    expect(Buffer.from(secret?.data?.DATABASE_URL ?? '', 'base64').toString()).toMatch(/^postgres:\/\//);
  });

  it('serves the API on a ClusterIP Service and the edge on a LoadBalancer at 80 and 443', () => {
    const services = ofKind(renderChart(['ci/minimal-values.yaml']).map((r) => r.object), 'Service');
    const byName = new Map(services.map((s) => [s.metadata.name, s.spec as { type?: string; ports: Array<{ port: number }> }]));
    expect(byName.get('release-custom-domain-service-api')?.type).toBe('ClusterIP');
    const edge = byName.get('release-custom-domain-service-edge-proxy');
    expect(edge?.type).toBe('LoadBalancer');
    expect(edge?.ports.map((p) => p.port)).toEqual([80, 443]);
  });

  it('uses an existing Secret, and adds autoscalers, ServiceMonitors and alert rules when asked', () => {
    const objects = renderChart(['ci/existing-secret-values.yaml']).map((r) => r.object);
    expect(ofKind(objects, 'Secret')).toEqual([]);
    const refs = ofKind(objects, 'Deployment').flatMap((d) => podSpec(d).containers.flatMap((c) => c.env ?? []).flatMap((e) => (e.valueFrom ? [e.valueFrom.secretKeyRef?.name] : [])));
    expect(new Set(refs)).toEqual(new Set(['cds-credentials']));
    expect(ofKind(objects, 'HorizontalPodAutoscaler').map((h) => h.metadata.name).sort()).toEqual(['release-custom-domain-service-api', 'release-custom-domain-service-edge-proxy']);
    expect(ofKind(objects, 'ServiceMonitor')).toHaveLength(4);
    expect(ofKind(objects, 'PrometheusRule')).toHaveLength(1);
    expect(ofKind(objects, 'NetworkPolicy')).toHaveLength(4);
  });

  it('autoscales api and edge-proxy by default, leaving their replica counts to the autoscalers', () => {
    const objects = renderChart(['ci/minimal-values.yaml']).map((r) => r.object);
    expect(autoscaling(objects)).toEqual([
      ['release-custom-domain-service-api', 2, 10],
      ['release-custom-domain-service-edge-proxy', 2, 20],
    ]);
    expect(deploymentReplicas(objects)).toEqual([
      ['release-custom-domain-service-api', undefined],
      ['release-custom-domain-service-checker', 1],
      ['release-custom-domain-service-webhook-dispatcher', 1],
      ['release-custom-domain-service-edge-proxy', undefined],
    ]);
    // Turned off, the replicas values apply.
    const fixed = renderChart(['ci/all-variables-values.yaml']).map((r) => r.object);
    expect(ofKind(fixed, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(ofKind(fixed, 'Deployment').map(replicasOf)).toEqual([3, 2, 2, 4]);
  });

  it("alerts on a component being down only for the enabled components, in the release's namespace", () => {
    const rulesIn = (files: string[]) => alertRules(renderChart(files, 'release', 'custom-domains').map((r) => r.object));
    const all = rulesIn(['ci/existing-secret-values.yaml']);
    const down = (rules: AlertRule[]) => rules.filter((r) => r.alert === 'CdsServiceDown').map((r) => r.expr);
    const absent = (job: string) => `absent(process_start_time_seconds{namespace="custom-domains",job="${job}"})`;
    expect(down(all)).toEqual([['api', 'checker', 'webhook-dispatcher', 'edge-proxy'].map(absent).join(' or ')]);
    const withoutChecker = rulesIn(['ci/existing-secret-values.yaml', writeValues('checker:\n  enabled: false\n')]);
    expect(down(withoutChecker)).toEqual([['api', 'webhook-dispatcher', 'edge-proxy'].map(absent).join(' or ')]);
    // The other rules are the same, in the same order.
    const others = (rules: AlertRule[]) => rules.filter((r) => r.alert !== 'CdsServiceDown');
    expect(others(withoutChecker)).toEqual(others(all));
    expect(others(all).length).toBeGreaterThan(10);
    const none = writeValues(['api', 'checker', 'webhookDispatcher', 'edgeProxy'].map((c) => `${c}:\n  enabled: false\n`).join(''));
    const noneRules = rulesIn(['ci/existing-secret-values.yaml', none]);
    expect(down(noneRules)).toEqual([]);
    expect(noneRules).toEqual(others(all));
  });

  it('keeps ServiceMonitors and alert rules off by default and ships one dashboard ConfigMap per service', () => {
    const objects = renderChart(['ci/minimal-values.yaml']).map((r) => r.object);
    expect(ofKind(objects, 'ServiceMonitor')).toEqual([]);
    expect(ofKind(objects, 'PrometheusRule')).toEqual([]);
    const dashboards = ofKind(objects, 'ConfigMap').filter((c) => c.metadata.labels?.grafana_dashboard === '1');
    expect(dashboards.map((d) => Object.keys(d.data ?? {})[0])).toEqual(['api.json', 'checker.json', 'webhook-dispatcher.json', 'edge-proxy.json']);
    for (const d of dashboards) expect(() => JSON.parse(Object.values(d.data ?? {})[0] ?? '')).not.toThrow();
  });

  it('refuses values with a misspelled variable or an unknown key', () => {
    const valid = (text: string) => validateValues(mergedValues(['ci/minimal-values.yaml', writeValues(text)]));
    expect(valid('config:\n  LOG_LEVL: debug\n')).toBe(false);
    expect(valid('secrets:\n  OPERATOR_TOKN: x\n')).toBe(false);
    expect(valid('apii:\n  replicas: 2\n')).toBe(false);
    // The shutdown deadline is fixed in code, not a value.
    expect(valid('shutdown:\n  deadlineSeconds: 40\n')).toBe(false);
    expect(valid('config:\n  LOG_LEVEL: debug\n')).toBe(true);
  });

  it('fails on output that is not YAML and flags objects the API server would refuse', () => {
    const notYaml = writeValues('image:\n  pullPolicy: "[Always"\n');
    expect(() => renderChart(['ci/minimal-values.yaml', notYaml])).toThrow(/deployments\.yaml: document \d+ is not valid YAML/);
    const badReplicas = writeValues('checker:\n  replicas: two\n');
    const objects = renderChart(['ci/minimal-values.yaml', badReplicas]).map((r) => r.object);
    expect(validateObjects(objects)).toEqual([expect.stringContaining('Deployment release-custom-domain-service-checker: data/spec/replicas must be integer')]);
  });
});

describe('kustomize tree', () => {
  it.each(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/prod'])('%s renders offline into valid objects', (dir) => {
    const objects = kustomize(dir);
    expect(ofKind(objects, 'Deployment')).toHaveLength(4);
    expect(validateObjects(objects)).toEqual([]);
  });

  it('prod autoscales api and edge with more room and carries the monitoring objects; dev runs one replica each and generates its own Secret', () => {
    const prod = kustomize('k8s/overlays/prod');
    expect(autoscaling(prod)).toEqual([
      ['cds-api', 3, 12],
      ['cds-edge-proxy', 3, 30],
    ]);
    expect(deploymentReplicas(prod)).toEqual([
      ['cds-api', undefined],
      ['cds-checker', 1],
      ['cds-edge-proxy', undefined],
      ['cds-webhook-dispatcher', 1],
    ]);
    expect(ofKind(prod, 'ServiceMonitor')).toHaveLength(4);
    const dev = kustomize('k8s/overlays/dev');
    expect(ofKind(dev, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(ofKind(dev, 'Deployment').map(replicasOf)).toEqual([1, 1, 1, 1]);
    expect(ofKind(dev, 'Secret').map((s) => s.metadata.name)).toEqual(['cds-secrets']);
    expect(ofKind(dev, 'ServiceMonitor')).toEqual([]);
  });

  it('ships the same dashboards and alert rules as the chart', () => {
    const chartDashboards = path.join(CHART, 'files/dashboards');
    const names = readdirSync(chartDashboards).sort();
    expect(readdirSync(path.join(ROOT, 'k8s/base/dashboards')).sort()).toEqual(names);
    for (const name of names) {
      expect(readFileSync(path.join(ROOT, 'k8s/base/dashboards', name), 'utf8')).toBe(readFileSync(path.join(chartDashboards, name), 'utf8'));
    }
    const chartRule = ofKind(renderChart(['ci/existing-secret-values.yaml']).map((r) => withoutReleaseNamespace(r.object)), 'PrometheusRule')[0];
    const kustomizeRule = ofKind(kustomize('k8s/overlays/prod'), 'PrometheusRule')[0];
    expect(kustomizeRule?.spec).toEqual(chartRule?.spec);
  });

  it('holds the same objects as the chart renders for release "cds", less what only Helm needs', () => {
    const values = path.join(ROOT, 'test/fixtures/helm/kustomize-base-values.yaml');
    const fromChart = renderChart([values], 'cds').map((r) => withoutHelmMarks(withoutReleaseNamespace(r.object)));
    const fromKustomize = [...kustomize('k8s/base'), ...kustomize('k8s/components/monitoring')]
      .filter((o) => !o.metadata.name.startsWith('cds-dashboard-'))
      .map(withoutHelmMarks);
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
    expect(fromKustomize.map(key).sort()).toEqual(fromChart.map(key).sort());
    const byKey = new Map(fromChart.map((o) => [key(o), o]));
    for (const o of fromKustomize) expect(o).toEqual(byKey.get(key(o)));
  });
});

/**
 * The chart's CdsServiceDown names the release's namespace in each absent();
 * the kustomize tree knows no namespace, so its rule leaves the matcher out.
 */
function withoutReleaseNamespace(object: K8sObject): K8sObject {
  if (object.kind !== 'PrometheusRule') return object;
  return JSON.parse(JSON.stringify(object).replaceAll('{namespace=\\"default\\",', '{')) as K8sObject;
}

/** Drops what differs by tool only: Helm's chart label, managed-by, hook and checksum annotations. */
function withoutHelmMarks(object: K8sObject): K8sObject {
  const copy = JSON.parse(JSON.stringify(object)) as K8sObject;
  const clean = (meta?: { labels?: Record<string, string>; annotations?: Record<string, string> }) => {
    if (!meta) return;
    delete meta.labels?.['helm.sh/chart'];
    delete meta.labels?.['app.kubernetes.io/managed-by'];
    for (const k of Object.keys(meta.annotations ?? {})) if (k.startsWith('helm.sh/') || k.startsWith('checksum/')) delete meta.annotations?.[k];
    if (meta.annotations && Object.keys(meta.annotations).length === 0) delete meta.annotations;
  };
  clean(copy.metadata);
  clean((copy.spec as { template?: { metadata?: K8sObject['metadata'] } } | undefined)?.template?.metadata);
  return copy;
}
