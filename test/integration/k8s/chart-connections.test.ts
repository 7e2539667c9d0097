// The chart's database and broker connection settings: CA bundles mounted
// where they are read (every service and the migration Job, which connects to
// a managed PostgreSQL first), extraEnv, and each service's pool size.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { CHART, mergedValues, ofKind, renderChart, type K8sObject } from '../../support/k8s-tools';

interface Container {
  name: string;
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  containers: Container[];
  volumes?: Array<{ name: string }>;
}

const podSpec = (o: K8sObject): PodSpec => (o.spec as { template: { spec: PodSpec } }).template.spec;
const envOf = (o: K8sObject): Record<string, unknown> => Object.fromEntries((podSpec(o).containers[0]?.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));
const componentOf = (o: K8sObject): string => o.metadata.labels?.['app.kubernetes.io/component'] ?? '';

const VALUES = `
config:
  DATABASE_CA_BUNDLE: /etc/cds-ca/rds-global-bundle.pem
  AMQP_CA_BUNDLE: /etc/cds-ca/broker-ca.pem
  DATABASE_POOL_SIZE: "6"
api:
  databasePoolSize: 3
edgeProxy:
  databasePoolSize: "12"
extraVolumes:
  - name: cds-ca
    configMap: { name: cds-ca-bundles }
extraVolumeMounts:
  - { name: cds-ca, mountPath: /etc/cds-ca, readOnly: true }
extraEnv:
  - { name: NODE_OPTIONS, value: --max-old-space-size=384 }
  - name: EXTRA_FROM_SECRET
    valueFrom: { secretKeyRef: { name: other-secret, key: value } }
`;

let dir: string;
let objects: K8sObject[];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cds-chart-connections-'));
  writeFileSync(path.join(dir, 'values.yaml'), VALUES);
  objects = renderChart(['ci/minimal-values.yaml', path.join(dir, 'values.yaml')]).map((r) => r.object);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('chart connections', () => {
  it('accepts these values by its schema', () => {
    const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect(validate(mergedValues(['ci/minimal-values.yaml', path.join(dir, 'values.yaml')])) ? [] : validate.errors).toEqual([]);
  });

  it('gives the migration Job the database CA bundle, its volume and extraEnv', () => {
    const [job] = ofKind(objects, 'Job') as [K8sObject];
    expect(envOf(job)).toMatchObject({
      DATABASE_URL: expect.anything(),
      DATABASE_CA_BUNDLE: '/etc/cds-ca/rds-global-bundle.pem',
      NODE_OPTIONS: '--max-old-space-size=384',
      EXTRA_FROM_SECRET: { secretKeyRef: { name: 'other-secret', key: 'value' } },
    });
    expect(podSpec(job).containers[0]?.volumeMounts).toEqual([{ name: 'cds-ca', mountPath: '/etc/cds-ca', readOnly: true }]);
    expect(podSpec(job).volumes).toEqual([{ name: 'cds-ca', configMap: { name: 'cds-ca-bundles' } }]);
  });

  it('gives every service the CA bundles (ConfigMap), their volume and extraEnv; a component pool size only its own', () => {
    const [configMap] = ofKind(objects, 'ConfigMap').filter((o) => o.data?.API_PORT !== undefined) as [K8sObject];
    expect(configMap.data).toMatchObject({
      DATABASE_CA_BUNDLE: '/etc/cds-ca/rds-global-bundle.pem', AMQP_CA_BUNDLE: '/etc/cds-ca/broker-ca.pem', DATABASE_POOL_SIZE: '6',
    });
    const deployments = ofKind(objects, 'Deployment');
    expect(deployments).toHaveLength(4);
    const pools = Object.fromEntries(deployments.map((d) => [componentOf(d), envOf(d).DATABASE_POOL_SIZE ?? 'config']));
    expect(pools).toEqual({ api: '3', checker: 'config', 'webhook-dispatcher': 'config', 'edge-proxy': '12' });
    for (const deployment of deployments) {
      expect(envOf(deployment)).toMatchObject({ NODE_OPTIONS: '--max-old-space-size=384' });
      expect(podSpec(deployment).containers[0]?.volumeMounts).toContainEqual({ name: 'cds-ca', mountPath: '/etc/cds-ca', readOnly: true });
      expect(podSpec(deployment).volumes).toContainEqual({ name: 'cds-ca', configMap: { name: 'cds-ca-bundles' } });
    }
  });

  it('renders no Job volumes, CA variable or pool size without them (ci/minimal-values.yaml)', () => {
    const plain = renderChart(['ci/minimal-values.yaml']).map((r) => r.object);
    const [job] = ofKind(plain, 'Job') as [K8sObject];
    expect(podSpec(job).volumes).toBeUndefined();
    expect(podSpec(job).containers[0]?.volumeMounts).toBeUndefined();
    for (const deployment of ofKind(plain, 'Deployment')) expect(envOf(deployment).DATABASE_POOL_SIZE).toBeUndefined();
  });
});
