// Certificates before cutover (DECISIONS §13, docs/certificates.md): the chart
// offers ACME_DNS_ZONE and ACME_DNS_UPDATE_SERVER as settings and
// ACME_DNS_TSIG_KEY as a secret that reaches the checker alone, and refuses to
// render some of the three without the others, in the words the services use
// when they refuse to start.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { checkAcmeDnsDelegation, parseDnsUpdateServer, parseTsigKey } from '@cds/config';
import { CHART, mergedValues, ofKind, renderChart, renderFailure, validateObjects, writeValues, type K8sObject } from '../../support/k8s-tools';

const MINIMAL = 'ci/minimal-values.yaml';
const ZONE = 'acme.edge.saas.example.com';
const SERVER = 'ns1.saas.example.com:53';
const KEY = 'cds-acme:hmac-sha256:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';

const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as object;
const validateValues = new Ajv({ strict: false, allErrors: true }).compile(schema);

interface EnvEntry {
  name: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
const containerEnv = (deployment: K8sObject) =>
  (deployment.spec as { template: { spec: { containers: Array<{ env?: EnvEntry[] }> } } }).template.spec.containers.flatMap((c) => c.env ?? []);
const componentOf = (deployment: K8sObject) => deployment.metadata.labels?.['app.kubernetes.io/component'] ?? '';

/** A values file setting the given ones of the three. */
function delegation(settings: { zone?: boolean; server?: boolean; key?: boolean }): string {
  const config = [settings.zone ? `  ACME_DNS_ZONE: ${ZONE}` : '', settings.server ? `  ACME_DNS_UPDATE_SERVER: "${SERVER}"` : ''].filter(Boolean);
  return writeValues([...(config.length > 0 ? ['config:', ...config] : []), ...(settings.key ? ['secrets:', `  ACME_DNS_TSIG_KEY: "${KEY}"`] : [])].join('\n') + '\n');
}

/** What the services say when only these of the three are set (libs/config), without its prefix. */
function serviceRefusal(settings: { zone?: boolean; server?: boolean; key?: boolean }): string {
  try {
    checkAcmeDnsDelegation({
      acmeDnsZone: settings.zone ? ZONE : null,
      acmeDnsUpdateServer: settings.server ? parseDnsUpdateServer(SERVER) : null,
      acmeDnsTsigKey: settings.key ? parseTsigKey(KEY) : null,
    });
  } catch (err) {
    return (err as Error).message.replace(/^Invalid configuration: /, '');
  }
  throw new Error('libs/config accepted it');
}

describe('chart: certificates before cutover', () => {
  it('gives the checker ACME_DNS_TSIG_KEY from the Secret, and no other service; the zone and the server reach every service', () => {
    const objects = renderChart([MINIMAL, delegation({ zone: true, server: true, key: true })]).map((r) => r.object);
    expect(validateObjects(objects)).toEqual([]);
    const [secret] = ofKind(objects, 'Secret');
    expect(Buffer.from(secret?.data?.ACME_DNS_TSIG_KEY ?? '', 'base64').toString()).toBe(KEY);
    const holders = ofKind(objects, 'Deployment').flatMap((d) => containerEnv(d).filter((e) => e.name === 'ACME_DNS_TSIG_KEY').map((e) => [componentOf(d), e.valueFrom?.secretKeyRef]));
    expect(holders).toEqual([['checker', { name: secret?.metadata.name, key: 'ACME_DNS_TSIG_KEY', optional: true }]]);
    const [configMap] = ofKind(objects, 'ConfigMap').filter((c) => c.data?.EDGE_TARGET !== undefined);
    expect(configMap?.data).toEqual(expect.objectContaining({ ACME_DNS_ZONE: ZONE, ACME_DNS_UPDATE_SERVER: SERVER }));
    expect(validateValues(mergedValues([MINIMAL, delegation({ zone: true, server: true, key: true })]))).toBe(true);
  });

  it('leaves the key out of the Secret and the settings out of the ConfigMap when none is set; the checker still refers to the optional key', () => {
    const objects = renderChart([MINIMAL]).map((r) => r.object);
    const [secret] = ofKind(objects, 'Secret');
    expect(secret?.data?.ACME_DNS_TSIG_KEY).toBeUndefined();
    for (const configMap of ofKind(objects, 'ConfigMap')) expect(Object.keys(configMap.data ?? {}).filter((k) => k.startsWith('ACME_DNS_'))).toEqual([]);
    const checker = ofKind(objects, 'Deployment').find((d) => componentOf(d) === 'checker') as K8sObject;
    expect(containerEnv(checker).find((e) => e.name === 'ACME_DNS_TSIG_KEY')?.valueFrom?.secretKeyRef?.optional).toBe(true);
  });

  it.each([
    [{ zone: true }, 'config.ACME_DNS_UPDATE_SERVER is required when config.ACME_DNS_ZONE is set'],
    [{ zone: true, server: true }, 'secrets.ACME_DNS_TSIG_KEY is required when config.ACME_DNS_ZONE and config.ACME_DNS_UPDATE_SERVER are set'],
    [{ server: true, key: true }, 'config.ACME_DNS_ZONE is required when config.ACME_DNS_UPDATE_SERVER and secrets.ACME_DNS_TSIG_KEY are set'],
    [{ key: true }, 'config.ACME_DNS_ZONE is required when secrets.ACME_DNS_TSIG_KEY is set'],
  ])('refuses to render with only %j of the three, in the services\' words', (settings, message) => {
    const failure = renderFailure([MINIMAL, delegation(settings)]);
    expect(failure).toContain(message);
    expect(failure).toContain('docs/certificates.md, "Certificates before cutover"');
    // The same sentence as libs/config's, with the values' sections named.
    expect(failure.replace(/(config|secrets)\.(ACME_DNS_)/g, '$2')).toContain(serviceRefusal(settings));
  });

  it('with secrets.existingSecret, takes the zone and the server (the key is in that Secret) and still refuses one without the other', () => {
    const objects = renderChart(['ci/existing-secret-values.yaml', delegation({ zone: true, server: true })]).map((r) => r.object);
    const checker = ofKind(objects, 'Deployment').find((d) => componentOf(d) === 'checker') as K8sObject;
    expect(containerEnv(checker).find((e) => e.name === 'ACME_DNS_TSIG_KEY')?.valueFrom?.secretKeyRef).toEqual({ name: 'cds-credentials', key: 'ACME_DNS_TSIG_KEY', optional: true });
    expect(renderFailure(['ci/existing-secret-values.yaml', delegation({ server: true })])).toContain('config.ACME_DNS_ZONE is required when config.ACME_DNS_UPDATE_SERVER is set');
  });

  it('values.schema.json takes host[:port] update servers and name:algorithm:secret keys, and refuses malformed ones', () => {
    const valid = (values: string) => validateValues(mergedValues([MINIMAL, writeValues(values)]));
    for (const server of ['ns1.example.com', '192.0.2.53:53', '[2001:db8::53]:5353', '2001:db8::53']) {
      expect({ server, valid: valid(`config:\n  ACME_DNS_UPDATE_SERVER: "${server}"\n`) }).toEqual({ server, valid: true });
    }
    for (const server of ['dns://ns1.example.com', 'ns1.example.com:53:53', 'ns1.example.com:']) {
      expect({ server, valid: valid(`config:\n  ACME_DNS_UPDATE_SERVER: "${server}"\n`) }).toEqual({ server, valid: false });
    }
    expect(valid('config:\n  ACME_DNS_ZONE: "acme edge"\n')).toBe(false);
    expect(valid('secrets:\n  ACME_DNS_TSIG_KEY: "cds-acme:hmac-md5:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="\n')).toBe(false);
  });
});
