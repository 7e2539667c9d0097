// The chart's optional backup CronJob (values `backup`): off by default; on, a
// valid CronJob and volume whose script, run here as rendered against the local
// PostgreSQL, writes a dump pg_restore reads and keeps the newest `retention`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { CHART, mergedValues, ofKind, renderChart, validateObjects, writeValues, type K8sObject } from '../../support/k8s-tools';

const MINIMAL = 'ci/minimal-values.yaml';
const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as object;
const validateValues = new Ajv({ strict: false, allErrors: true }).compile(schema);

interface Container {
  image: string;
  command?: string[];
  args: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
  securityContext: { readOnlyRootFilesystem?: boolean };
}
interface CronJobSpec {
  schedule: string;
  concurrencyPolicy: string;
  jobTemplate: { spec: { backoffLimit: number; activeDeadlineSeconds: number; template: { spec: { containers: Container[]; volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }> } } } };
}

const render = (values: string) => renderChart([MINIMAL, writeValues(values)]).map((r) => r.object);
const cronJob = (objects: K8sObject[]) => {
  const [job] = ofKind(objects, 'CronJob');
  if (!job) throw new Error('no CronJob rendered');
  return job.spec as unknown as CronJobSpec;
};
const container = (spec: CronJobSpec) => spec.jobTemplate.spec.template.spec.containers[0] as Container;

describe('Helm chart: backup CronJob', () => {
  it('renders nothing for backups by default', () => {
    const objects = renderChart([MINIMAL]).map((r) => r.object);
    expect(ofKind(objects, 'CronJob')).toEqual([]);
    expect(ofKind(objects, 'PersistentVolumeClaim')).toEqual([]);
  });

  it('enabled: a valid CronJob with its own volume, kept by helm uninstall, reading DATABASE_URL from the Secret', () => {
    const objects = render('backup:\n  enabled: true\n  schedule: "5 4 * * *"\n  retention: 3\n');
    expect(validateObjects(objects)).toEqual([]);
    const [claim] = ofKind(objects, 'PersistentVolumeClaim');
    expect(claim?.metadata.name).toBe('release-custom-domain-service-backup');
    expect(claim?.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    const spec = cronJob(objects);
    expect(spec.schedule).toBe('5 4 * * *');
    expect(spec.concurrencyPolicy).toBe('Forbid');
    const backup = container(spec);
    expect(backup.command).toBeUndefined(); // under the image's tini
    expect(backup.args.slice(0, 2)).toEqual(['sh', '-c']);
    expect(backup.args[2]).toContain('pg_dump --format=custom --no-owner');
    const deployment = ofKind(objects, 'Deployment')[0] as K8sObject;
    const serviceImage = ((deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0] as Container).image;
    expect(backup.image).toBe(serviceImage);
    expect(backup.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(backup.env).toContainEqual({ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'release-custom-domain-service', key: 'DATABASE_URL' } } });
    expect(backup.env).toContainEqual({ name: 'RETENTION', value: '3' });
    expect(backup.env.map((e) => e.name)).not.toContain('PGSSLROOTCERT');
    expect(backup.volumeMounts).toEqual([{ name: 'backup', mountPath: '/backup' }]);
    expect(spec.jobTemplate.spec.template.spec.volumes).toEqual([{ name: 'backup', persistentVolumeClaim: { claimName: 'release-custom-domain-service-backup' } }]);
  });

  it('uses an existing claim instead of its own, and the CA bundle with the extra volumes when DATABASE_CA_BUNDLE is set', () => {
    const objects = render([
      'backup:\n  enabled: true\n  existingClaim: nightly-dumps',
      'config:\n  DATABASE_CA_BUNDLE: /etc/cds-ca/db.pem',
      'extraVolumes: [{ name: cds-ca, configMap: { name: cds-ca } }]',
      'extraVolumeMounts: [{ name: cds-ca, mountPath: /etc/cds-ca, readOnly: true }]',
    ].join('\n'));
    expect(validateObjects(objects)).toEqual([]);
    expect(ofKind(objects, 'PersistentVolumeClaim')).toEqual([]);
    const spec = cronJob(objects);
    expect(spec.jobTemplate.spec.template.spec.volumes).toEqual([
      { name: 'backup', persistentVolumeClaim: { claimName: 'nightly-dumps' } },
      { name: 'cds-ca', configMap: { name: 'cds-ca' } },
    ]);
    const backup = container(spec);
    expect(backup.env).toContainEqual({ name: 'PGSSLROOTCERT', value: '/etc/cds-ca/db.pem' });
    expect(backup.env).toContainEqual({ name: 'PGSSLMODE', value: 'verify-full' });
    expect(backup.volumeMounts).toContainEqual({ name: 'cds-ca', mountPath: '/etc/cds-ca', readOnly: true });
  });

  it('values.schema.json refuses a retention below 1 and unknown backup keys', () => {
    const base = [MINIMAL];
    expect(validateValues(mergedValues([...base, writeValues('backup:\n  enabled: true\n  retention: 2\n')]))).toBe(true);
    expect(validateValues(mergedValues([...base, writeValues('backup:\n  retention: 0\n')]))).toBe(false);
    expect(validateValues(mergedValues([...base, writeValues('backup:\n  keep: 3\n')]))).toBe(false);
  });

  describe('its script, as rendered, against PostgreSQL', () => {
    let db: TestDatabase;
    let dir: string;
    beforeAll(async () => {
      db = await createTestDatabase('postgres');
      dir = mkdtempSync(path.join(tmpdir(), 'cds-backup-'));
    });
    afterAll(async () => {
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('writes a dump pg_restore reads, keeps the newest `retention` dumps and leaves other files alone', () => {
      const script = container(cronJob(render('backup:\n  enabled: true\n'))).args[2] as string;
      const older = ['custom-domains-20250101T000000Z.dump', 'custom-domains-20250102T000000Z.dump', 'custom-domains-20250103T000000Z.dump'];
      for (const name of [...older, 'notes.txt']) writeFileSync(path.join(dir, name), 'old');
      execFileSync('psql', ['-X', '-q', '-d', db.url, '-c', 'CREATE TABLE marker (id int); INSERT INTO marker VALUES (42)']);

      const run = spawnSync('sh', ['-c', script.replaceAll('/backup', dir)], { encoding: 'utf8', env: { PATH: process.env.PATH, DATABASE_URL: db.url, RETENTION: '2' } });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const files = readdirSync(dir).sort();
      const written = files.filter((f) => /^custom-domains-\d{8}T\d{6}Z\.dump$/.test(f) && !older.includes(f));
      expect(written).toHaveLength(1);
      expect(files).toEqual([older[2], written[0], 'notes.txt'].sort());
      expect(run.stdout).toContain(`backup: deleted ${dir}/${older[0]}`);
      const listing = execFileSync('pg_restore', ['--list', path.join(dir, written[0] as string)], { encoding: 'utf8' });
      expect(listing).toMatch(/TABLE DATA public marker/);
    });

    it('fails and leaves no file when pg_dump cannot reach the database', () => {
      const script = container(cronJob(render('backup:\n  enabled: true\n'))).args[2] as string;
      const before = readdirSync(dir).sort();
      const run = spawnSync('sh', ['-c', script.replaceAll('/backup', dir)], { encoding: 'utf8', env: { PATH: process.env.PATH, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', RETENTION: '2' } });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain('pg_dump');
      expect(readdirSync(dir).sort()).toEqual(before);
    });
  });
});
