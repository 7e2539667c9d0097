// The chart sets exactly the environment variables libs/config reads: no typo
// can reach a cluster, and no variable is out of the operator's reach.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_URL_VARIABLE, configSchemaDoc } from '@cds/config';
import { CHART, kustomize, ofKind, renderChart, renderFailure, writeValues, type K8sObject } from '../../support/k8s-tools';

const ACCEPTED = configSchemaDoc().map((v) => v.name).sort();

/** A numbered variable (ACME_EAB_KID_2) under its documented name (ACME_EAB_KID_<n>); any other name as it is. */
function docName(name: string): string {
  const numbered = name.replace(/_[1-9][0-9]*$/, '_<n>');
  return ACCEPTED.includes(numbered) ? numbered : name;
}
/** A values.schema.json pattern (^ACME_EAB_KID_[1-9][0-9]*$) under its documented name. */
const patternName = (pattern: string) => pattern.replace(/^\^/, '').replace(/\[1-9\]\[0-9\]\*\$$/, '<n>');

/**
 * The secret-held variables each service reads (its config.* uses: the api's
 * operator auth and sealed webhook secrets and assertion keys; the checker's
 * sealed private keys, origin probe assertions and the TSIG key of its
 * updates of the ACME DNS zone; the dispatcher's sealed
 * webhook secrets; the edge's sealed private keys, its assertions and the
 * fair-use notice mail). Each Deployment gets these and no other secret.
 */
const SECRETS_READ: Record<string, readonly string[]> = {
  api: ['DATABASE_URL', 'AMQP_URL', 'OPERATOR_TOKEN', 'DATA_ENCRYPTION_KEY', 'DATA_ENCRYPTION_KEYS'],
  checker: ['DATABASE_URL', 'AMQP_URL', 'DATA_ENCRYPTION_KEY', 'DATA_ENCRYPTION_KEYS', 'ASSERTION_DEPLOYMENT_KEY', 'ACME_DNS_TSIG_KEY'],
  'webhook-dispatcher': ['DATABASE_URL', 'AMQP_URL', 'DATA_ENCRYPTION_KEY', 'DATA_ENCRYPTION_KEYS'],
  'edge-proxy': ['DATABASE_URL', 'AMQP_URL', 'DATA_ENCRYPTION_KEY', 'DATA_ENCRYPTION_KEYS', 'ASSERTION_DEPLOYMENT_KEY', 'SMTP_URL'],
};
/** Numbered secrets a service reads when their directory is configured: the checker's External Account Binding keys. */
const NUMBERED_SECRETS_READ: Record<string, readonly string[]> = { checker: ['ACME_EAB_HMAC_KEY_<n>'] };
/** cdctl's own setting, which the api pods carry so that cdctl run there reaches the pod's operator API. */
const CDCTL_ONLY = [CLI_URL_VARIABLE];

interface Container {
  env?: Array<{ name: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
}

const SCHEMA = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as {
  properties: { config: { properties: object; patternProperties?: object }; secrets: { properties: object; patternProperties?: object } };
};
/** The names a values section offers: its properties, and its numbered patterns under their documented names. */
const offeredIn = (section: { properties: object; patternProperties?: object }) =>
  [...Object.keys(section.properties), ...Object.keys(section.patternProperties ?? {}).map(patternName)];

/** Every variable a Deployment's containers get: their env entries and the keys of ConfigMaps they load whole. */
function environmentOf(deployment: K8sObject, objects: readonly K8sObject[]): string[] {
  const containers = (deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers;
  const names = new Set<string>();
  for (const c of containers) {
    for (const e of c.env ?? []) names.add(docName(e.name));
    for (const from of c.envFrom ?? []) {
      // A whole Secret would bring keys the chart cannot see; only ConfigMaps it renders itself are allowed.
      expect(from.secretRef).toBeUndefined();
      const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === from.configMapRef?.name);
      expect(map).toBeDefined();
      for (const key of Object.keys(map?.data ?? {})) names.add(docName(key));
    }
  }
  return [...names].sort();
}

describe('chart environment', () => {
  it('offers, in values.schema.json, exactly the variables libs/config accepts', () => {
    const schema = SCHEMA;
    const offered = [...offeredIn(schema.properties.config), ...offeredIn(schema.properties.secrets).filter((k) => k !== 'existingSecret')];
    expect(offered.sort()).toEqual(ACCEPTED);
  });

  it('gives every service, when all are set, every setting and the secrets it reads; together they are all of them', () => {
    const objects = renderChart(['ci/all-variables-values.yaml']).map((r) => r.object);
    const deployments = ofKind(objects, 'Deployment');
    expect(deployments).toHaveLength(4);
    const secrets = offeredIn(SCHEMA.properties.secrets).filter((k) => k !== 'existingSecret');
    const settings = ACCEPTED.filter((name) => !secrets.includes(name));
    const seen = new Set<string>();
    for (const deployment of deployments) {
      const component = deployment.metadata.labels?.['app.kubernetes.io/component'] ?? '';
      const env = environmentOf(deployment, objects);
      const expected = [...settings, ...(SECRETS_READ[component] ?? []), ...(NUMBERED_SECRETS_READ[component] ?? []), ...(component === 'api' ? CDCTL_ONLY : [])].sort();
      expect({ component, env }).toEqual({ component, env: expected });
      for (const name of env) seen.add(name);
    }
    expect([...seen].filter((name) => !CDCTL_ONLY.includes(name)).sort()).toEqual(ACCEPTED);
  });

  it.each(['ci/minimal-values.yaml', 'ci/existing-secret-values.yaml'])('%s sets only accepted variables, and each service its own secrets', (file) => {
    const objects = renderChart([file]).map((r) => r.object);
    for (const deployment of ofKind(objects, 'Deployment')) {
      const component = deployment.metadata.labels?.['app.kubernetes.io/component'] ?? '';
      const env = environmentOf(deployment, objects);
      expect(env.filter((name) => !ACCEPTED.includes(name) && !(component === 'api' && CDCTL_ONLY.includes(name)))).toEqual([]);
      expect(env).toEqual(expect.arrayContaining([...(SECRETS_READ[component] ?? [])]));
    }
  });

  it.each(['ci/minimal-values.yaml', 'ci/existing-secret-values.yaml', 'k8s/base'])('%s: the internet-facing edge holds no OPERATOR_TOKEN, only the api does', (source) => {
    const objects = source.startsWith('k8s/') ? kustomize(source) : renderChart([source]).map((r) => r.object);
    const holders = ofKind(objects, 'Deployment').filter((d) => environmentOf(d, objects).includes('OPERATOR_TOKEN'));
    expect(holders.map((d) => d.metadata.labels?.['app.kubernetes.io/component'])).toEqual(['api']);
    const edge = ofKind(objects, 'Deployment').find((d) => d.metadata.labels?.['app.kubernetes.io/component'] === 'edge-proxy') as K8sObject;
    expect(environmentOf(edge, objects).filter((name) => Object.values(SECRETS_READ).flat().includes(name)).sort()).toEqual([...(SECRETS_READ['edge-proxy'] ?? [])].sort());
  });

  it('the Secret the chart writes still holds every key (the migration Job and the services pick theirs from it)', () => {
    const [secret] = ofKind(renderChart(['ci/all-variables-values.yaml']).map((r) => r.object), 'Secret');
    // Of DATA_ENCRYPTION_KEY and DATA_ENCRYPTION_KEYS, only the one given: the chart refuses both.
    const given = [...new Set([...Object.values(SECRETS_READ), ...Object.values(NUMBERED_SECRETS_READ)].flat())].filter((name) => name !== 'DATA_ENCRYPTION_KEYS');
    expect(Object.keys(secret?.data ?? {}).map(docName).sort()).toEqual(given.sort());
  });

  it('takes DATA_ENCRYPTION_KEYS instead of DATA_ENCRYPTION_KEY, never both, and one of them is required', () => {
    const minimal = readFileSync(path.join(CHART, 'ci/minimal-values.yaml'), 'utf8');
    const keys = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=,HyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4=';
    const rotating = writeValues(minimal.replace(/DATA_ENCRYPTION_KEY: .*/, `DATA_ENCRYPTION_KEYS: "${keys}"`));
    const [secret] = ofKind(renderChart([rotating]).map((r) => r.object), 'Secret');
    expect(Buffer.from(secret?.data?.DATA_ENCRYPTION_KEYS ?? '', 'base64').toString()).toBe(keys);
    expect(secret?.data?.DATA_ENCRYPTION_KEY).toBeUndefined();
    expect(renderFailure([path.join(CHART, 'ci/minimal-values.yaml'), writeValues(`secrets:\n  DATA_ENCRYPTION_KEYS: "${keys}"\n`)])).toContain(
      'set secrets.DATA_ENCRYPTION_KEY or secrets.DATA_ENCRYPTION_KEYS, not both',
    );
    expect(renderFailure([writeValues(minimal.replace(/DATA_ENCRYPTION_KEY: .*/, ''))])).toContain('secrets.DATA_ENCRYPTION_KEY is required (or secrets.DATA_ENCRYPTION_KEYS');
  });

  it('migration Job gets only accepted variables', () => {
    const [job] = ofKind(renderChart(['ci/minimal-values.yaml']).map((r) => r.object), 'Job');
    const env = environmentOf(job as K8sObject, []);
    expect(env).toEqual(['DATABASE_URL', 'LOG_LEVEL']);
  });

  it.each(['k8s/overlays/dev', 'k8s/overlays/prod'])('%s sets only accepted variables', (dir) => {
    const objects = kustomize(dir);
    for (const deployment of ofKind(objects, 'Deployment')) {
      const api = deployment.metadata.labels?.['app.kubernetes.io/component'] === 'api';
      expect(environmentOf(deployment, objects).filter((name) => !ACCEPTED.includes(name) && !(api && CDCTL_ONLY.includes(name)))).toEqual([]);
    }
  });
});
