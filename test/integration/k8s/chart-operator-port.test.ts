// The chart sets OPERATOR_PORT (DECISIONS §4): the api container names the
// port, and only the ClusterIP Service <release>-operator carries it — never
// the api Service or an Ingress (chart-exposure.test.ts).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { CHART, mergedValues, ofKind, renderChart, type K8sObject } from '../../support/k8s-tools';

interface Port {
  name: string;
  containerPort: number;
}

const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as object;
const validateValues = new Ajv({ strict: false, allErrors: true }).compile(schema);

function writeValues(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'cds-values-')), 'values.yaml');
  writeFileSync(file, text);
  return file;
}

const named = (objects: K8sObject[], kind: string, name: string) => ofKind(objects, kind).find((o) => o.metadata.name === name);
const containerPorts = (deployment: K8sObject | undefined) =>
  (deployment?.spec as { template: { spec: { containers: Array<{ ports: Port[] }> } } }).template.spec.containers[0]?.ports ?? [];

describe('chart: OPERATOR_PORT', () => {
  it('is set by default, and the api container (only) names the port', () => {
    const objects = renderChart(['ci/minimal-values.yaml']).map((r) => r.object);
    const config = ofKind(objects, 'ConfigMap').find((c) => c.data?.API_PORT !== undefined);
    expect(config?.data?.OPERATOR_PORT).toBe('8082');
    expect(containerPorts(named(objects, 'Deployment', 'release-custom-domain-service-api'))).toEqual(
      expect.arrayContaining([{ name: 'api', containerPort: 8080, protocol: 'TCP' }, { name: 'operator', containerPort: 8082, protocol: 'TCP' }]),
    );
    for (const other of ['checker', 'webhook-dispatcher', 'edge-proxy']) {
      expect(containerPorts(named(objects, 'Deployment', `release-custom-domain-service-${other}`)).map((p) => p.name)).not.toContain('operator');
    }
  });

  it('is carried by the ClusterIP operator Service alone', () => {
    const objects = renderChart(['ci/existing-secret-values.yaml']).map((r) => r.object);
    const carrying = ofKind(objects, 'Service').filter((service) => {
      const ports = (service.spec as { ports: Array<{ port: number; targetPort: string | number }> }).ports;
      return ports.some((p) => p.targetPort === 'operator' || p.targetPort === 8082);
    });
    expect(carrying.map((s) => [s.metadata.name, (s.spec as { type: string }).type])).toEqual([['release-custom-domain-service-operator', 'ClusterIP']]);
  });

  it('can be left unset: then the api container has no operator port', () => {
    const objects = renderChart(['ci/minimal-values.yaml', writeValues('config:\n  OPERATOR_PORT: ""\n')]).map((r) => r.object);
    expect(containerPorts(named(objects, 'Deployment', 'release-custom-domain-service-api')).map((p) => p.name)).toEqual(['metrics', 'api']);
    expect(ofKind(objects, 'ConfigMap').find((c) => c.data?.API_PORT !== undefined)?.data?.OPERATOR_PORT).toBeUndefined();
  });

  it('values.schema.json refuses a port that is not one, and an operator token libs/config would refuse', () => {
    expect(validateValues(mergedValues([writeValues('config:\n  OPERATOR_PORT: "80a"\n')]))).toBe(false);
    expect(validateValues(mergedValues([writeValues('config:\n  OPERATOR_PORT: "9000"\n')]))).toBe(true);
    expect(validateValues(mergedValues([writeValues(`secrets:\n  OPERATOR_TOKEN: "${'x'.repeat(31)}"\n`)]))).toBe(false);
    expect(validateValues(mergedValues([writeValues(`secrets:\n  OPERATOR_TOKEN: "${'x'.repeat(20)} ${'y'.repeat(20)}"\n`)]))).toBe(false);
    expect(validateValues(mergedValues([writeValues(`secrets:\n  OPERATOR_TOKEN: "${'x'.repeat(32)}"\n`)]))).toBe(true);
  });
});
