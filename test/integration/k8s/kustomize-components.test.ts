// The kustomize tree's backup and database-ca components: they render into valid
// objects, the same the chart renders for release "cds" with backup.enabled and
// a DATABASE_CA_BUNDLE mounted with extraVolumes (less what only Helm needs),
// and prod carries the CronJob (and, with database-ca, the CA everywhere).
import path from 'node:path';
import { kustomize, ofKind, renderChart, ROOT, validateObjects, writeValues, type K8sObject } from '../../support/k8s-tools';

const CA_PATH = '/etc/cds-ca/database.pem';
const CA_VOLUME = { name: 'cds-ca', configMap: { name: 'cds-ca' } };
const CA_MOUNT = { name: 'cds-ca', mountPath: '/etc/cds-ca', readOnly: true };

interface Container {
  name: string;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
interface PodSpec {
  containers: Container[];
  volumes?: Array<{ name: string }>;
}

const podSpec = (o: K8sObject): PodSpec => {
  const spec = o.spec as { template?: { spec: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } };
  const pod = spec.jobTemplate?.spec.template.spec ?? spec.template?.spec;
  if (!pod) throw new Error(`${o.kind}/${o.metadata.name} has no pod template`);
  return pod;
};
const firstContainer = (o: K8sObject): Container => podSpec(o).containers[0] as Container;
const named = (objects: readonly K8sObject[], kind: string, name: string): K8sObject => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found;
};

/** Drops Helm's chart label, managed-by, and its hook and resource-policy annotations, wherever they are. */
function withoutHelmMarks(object: K8sObject): K8sObject {
  const clean = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(clean);
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    const labels = record.labels as Record<string, string> | undefined;
    if (record.labels && typeof labels === 'object') {
      delete labels['helm.sh/chart'];
      delete labels['app.kubernetes.io/managed-by'];
    }
    const annotations = record.annotations as Record<string, string> | undefined;
    if (annotations && typeof annotations === 'object') {
      for (const k of Object.keys(annotations)) if (k.startsWith('helm.sh/') || k.startsWith('checksum/')) delete annotations[k];
      if (Object.keys(annotations).length === 0) delete record.annotations;
    }
    Object.values(record).forEach(clean);
  };
  const copy = JSON.parse(JSON.stringify(object)) as K8sObject;
  clean(copy);
  return copy;
}

describe('kustomize components: backup and database-ca', () => {
  it('k8s/components/backup renders the chart\'s backup CronJob and volume for release "cds"', () => {
    const objects = kustomize('k8s/components/backup');
    expect(validateObjects(objects)).toEqual([]);
    const values = [path.join(ROOT, 'test/fixtures/helm/kustomize-base-values.yaml'), writeValues('backup:\n  enabled: true\n')];
    const fromChart = renderChart(values, 'cds').map((r) => withoutHelmMarks(r.object));
    for (const kind of ['CronJob', 'PersistentVolumeClaim']) {
      expect(ofKind(objects, kind).map(withoutHelmMarks)).toEqual(ofKind(fromChart, kind));
      expect(ofKind(objects, kind).map((o) => o.metadata.name)).toEqual(['cds-backup']);
    }
    const backup = firstContainer(named(objects, 'CronJob', 'cds-backup'));
    expect(backup.env).toContainEqual({ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { key: 'DATABASE_URL', name: 'cds-secrets' } } });
  });

  it('base with both components holds the objects the chart renders with backup.enabled and DATABASE_CA_BUNDLE from extraVolumes', () => {
    const objects = kustomize('test/fixtures/k8s/base-backup-database-ca');
    expect(validateObjects(objects)).toEqual([]);
    const values = writeValues([
      'backup:\n  enabled: true',
      `config:\n  DATABASE_CA_BUNDLE: ${CA_PATH}`,
      'extraVolumes: [{ name: cds-ca, configMap: { name: cds-ca } }]',
      'extraVolumeMounts: [{ name: cds-ca, mountPath: /etc/cds-ca, readOnly: true }]',
    ].join('\n'));
    const fromChart = renderChart([path.join(ROOT, 'test/fixtures/helm/kustomize-base-values.yaml'), values], 'cds').map((r) => withoutHelmMarks(r.object));
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
    const byKey = new Map(fromChart.map((o) => [key(o), o]));
    const compared = objects.filter((o) => ['Deployment', 'Job', 'CronJob', 'PersistentVolumeClaim'].includes(o.kind) || key(o) === 'ConfigMap/cds');
    expect(compared.map(key).sort()).toEqual([
      'ConfigMap/cds', 'CronJob/cds-backup', 'Deployment/cds-api', 'Deployment/cds-checker', 'Deployment/cds-edge-proxy',
      'Deployment/cds-webhook-dispatcher', 'Job/cds-migrate', 'PersistentVolumeClaim/cds-backup',
    ]);
    for (const o of compared) expect(withoutHelmMarks(o)).toEqual(byKey.get(key(o)));
  });

  it('prod runs the backup CronJob, and without database-ca sets no CA bundle', () => {
    const prod = kustomize('k8s/overlays/prod');
    expect(validateObjects(prod)).toEqual([]);
    const cronJob = named(prod, 'CronJob', 'cds-backup');
    expect(cronJob.metadata).toMatchObject({ namespace: 'custom-domains' });
    expect(named(prod, 'PersistentVolumeClaim', 'cds-backup').metadata).toMatchObject({ namespace: 'custom-domains' });
    expect(named(prod, 'ConfigMap', 'cds').data?.DATABASE_CA_BUNDLE).toBeUndefined();
    expect(firstContainer(cronJob).env?.map((e) => e.name)).not.toContain('PGSSLROOTCERT');
  });

  it('prod with database-ca mounts cds-ca and sets DATABASE_CA_BUNDLE in every Deployment, the migration Job and the backup CronJob', () => {
    const objects = kustomize('test/fixtures/k8s/prod-database-ca');
    expect(validateObjects(objects)).toEqual([]);
    const config = named(objects, 'ConfigMap', 'cds');
    expect(config.data?.DATABASE_CA_BUNDLE).toBe(CA_PATH);
    expect(config.data?.AMQP_CA_BUNDLE).toBeUndefined(); // only with an amqps:// broker, set in the overlay

    const deployments = ofKind(objects, 'Deployment');
    expect(deployments).toHaveLength(4);
    for (const deployment of deployments) {
      const container = firstContainer(deployment);
      expect(container.envFrom).toContainEqual({ configMapRef: { name: 'cds' } }); // DATABASE_CA_BUNDLE
      expect(container.volumeMounts).toContainEqual(CA_MOUNT);
      expect(podSpec(deployment).volumes).toContainEqual(CA_VOLUME);
    }

    const job = named(objects, 'Job', 'cds-migrate');
    expect(firstContainer(job).env).toContainEqual({ name: 'DATABASE_CA_BUNDLE', value: CA_PATH });
    expect(firstContainer(job).volumeMounts).toEqual([CA_MOUNT]);
    expect(podSpec(job).volumes).toEqual([CA_VOLUME]);

    const cronJob = named(objects, 'CronJob', 'cds-backup');
    expect(firstContainer(cronJob).env).toEqual(expect.arrayContaining([{ name: 'PGSSLROOTCERT', value: CA_PATH }, { name: 'PGSSLMODE', value: 'verify-full' }]));
    expect(firstContainer(cronJob).volumeMounts).toContainEqual(CA_MOUNT);
    expect(podSpec(cronJob).volumes).toContainEqual(CA_VOLUME);
  });
});
