// The chart sets exactly the environment variables libs/config reads: no typo
// can reach a cluster, and no variable is out of the operator's reach.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configSchemaDoc } from '@cds/config';
import { CHART, kustomize, ofKind, renderChart, type K8sObject } from '../../support/k8s-tools';

const ACCEPTED = configSchemaDoc().map((v) => v.name).sort();

interface Container {
  env?: Array<{ name: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
}

/** Every variable a Deployment's containers get: their env entries and the keys of ConfigMaps they load whole. */
function environmentOf(deployment: K8sObject, objects: readonly K8sObject[]): string[] {
  const containers = (deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers;
  const names = new Set<string>();
  for (const c of containers) {
    for (const e of c.env ?? []) names.add(e.name);
    for (const from of c.envFrom ?? []) {
      // A whole Secret would bring keys the chart cannot see; only ConfigMaps it renders itself are allowed.
      expect(from.secretRef).toBeUndefined();
      const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === from.configMapRef?.name);
      expect(map).toBeDefined();
      for (const key of Object.keys(map?.data ?? {})) names.add(key);
    }
  }
  return [...names].sort();
}

describe('chart environment', () => {
  it('offers, in values.schema.json, exactly the variables libs/config accepts', () => {
    const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as {
      properties: { config: { properties: object }; secrets: { properties: object } };
    };
    const offered = [...Object.keys(schema.properties.config.properties), ...Object.keys(schema.properties.secrets.properties).filter((k) => k !== 'existingSecret')];
    expect(offered.sort()).toEqual(ACCEPTED);
  });

  it('gives every service all of them when all are set, and nothing else', () => {
    const objects = renderChart(['ci/all-variables-values.yaml']).map((r) => r.object);
    const deployments = ofKind(objects, 'Deployment');
    expect(deployments).toHaveLength(4);
    for (const deployment of deployments) expect(environmentOf(deployment, objects)).toEqual(ACCEPTED);
  });

  it.each(['ci/minimal-values.yaml', 'ci/existing-secret-values.yaml'])('%s sets only accepted variables', (file) => {
    const objects = renderChart([file]).map((r) => r.object);
    for (const deployment of ofKind(objects, 'Deployment')) {
      const env = environmentOf(deployment, objects);
      expect(env.filter((name) => !ACCEPTED.includes(name))).toEqual([]);
      expect(env).toEqual(expect.arrayContaining(['DATABASE_URL', 'AMQP_URL', 'OPERATOR_TOKEN', 'DATA_ENCRYPTION_KEY', 'ASSERTION_DEPLOYMENT_KEY']));
    }
  });

  it('migration Job gets only accepted variables', () => {
    const [job] = ofKind(renderChart(['ci/minimal-values.yaml']).map((r) => r.object), 'Job');
    const env = environmentOf(job as K8sObject, []);
    expect(env).toEqual(['DATABASE_URL', 'LOG_LEVEL']);
  });

  it.each(['k8s/overlays/dev', 'k8s/overlays/prod'])('%s sets only accepted variables', (dir) => {
    const objects = kustomize(dir);
    for (const deployment of ofKind(objects, 'Deployment')) {
      expect(environmentOf(deployment, objects).filter((name) => !ACCEPTED.includes(name))).toEqual([]);
    }
  });
});
