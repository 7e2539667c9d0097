// The chart sets OPERATOR_PORT (DECISIONS §4): the api container names the
// port, and only the ClusterIP Service <release>-operator carries it — never
// the api Service or an Ingress (chart-exposure.test.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { CLI_URL_VARIABLE, loadCliSettings } from '@cds/config';
import { CHART, kustomize, mergedValues, ofKind, renderChart, writeValues, type K8sObject } from '../../support/k8s-tools';

interface Port {
  name: string;
  containerPort: number;
}

const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as object;
const validateValues = new Ajv({ strict: false, allErrors: true }).compile(schema);

const named = (objects: K8sObject[], kind: string, name: string) => ofKind(objects, kind).find((o) => o.metadata.name === name);
/** The value of a Deployment's env entry (undefined when it has none). */
const envValue = (deployment: K8sObject | undefined, name: string) =>
  (deployment?.spec as { template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } } }).template.spec.containers[0]?.env?.find((e) => e.name === name)?.value;
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

  describe('CDCTL_URL: cdctl run in an api pod (kubectl exec deploy/<release>-api -- cdctl …) reaches its operator API', () => {
    const API = 'release-custom-domain-service-api';

    it('is the base URL of OPERATOR_PORT on loopback, in the form cdctl reads', () => {
      const objects = renderChart(['ci/minimal-values.yaml']).map((r) => r.object);
      const url = envValue(named(objects, 'Deployment', API), CLI_URL_VARIABLE);
      expect(url).toBe('http://127.0.0.1:8082');
      expect(loadCliSettings({ [CLI_URL_VARIABLE]: url }, '/nonexistent').apiUrl).toBe('http://127.0.0.1:8082');
      // The pod also has the token cdctl sends.
      expect((named(objects, 'Deployment', API)?.spec as { template: { spec: { containers: Array<{ env: Array<{ name: string }> }> } } }).template.spec.containers[0]?.env.map((e) => e.name)).toContain('OPERATOR_TOKEN');
      for (const other of ['checker', 'webhook-dispatcher', 'edge-proxy']) {
        expect([other, envValue(named(objects, 'Deployment', `release-custom-domain-service-${other}`), CLI_URL_VARIABLE)]).toEqual([other, undefined]);
      }
    });

    it('follows OPERATOR_PORT, and is API_PORT when the operator API has no port of its own', () => {
      const moved = renderChart(['ci/minimal-values.yaml', writeValues('config:\n  OPERATOR_PORT: "9100"\n')]).map((r) => r.object);
      expect(envValue(named(moved, 'Deployment', API), CLI_URL_VARIABLE)).toBe('http://127.0.0.1:9100');
      const shared = renderChart(['ci/minimal-values.yaml', writeValues('config:\n  OPERATOR_PORT: ""\n  API_PORT: "8090"\n')]).map((r) => r.object);
      expect(envValue(named(shared, 'Deployment', API), CLI_URL_VARIABLE)).toBe('http://127.0.0.1:8090');
    });

    it('is set in k8s/base too', () => {
      expect(envValue(named(kustomize('k8s/base'), 'Deployment', 'cds-api'), CLI_URL_VARIABLE)).toBe('http://127.0.0.1:8082');
    });
  });

  it('values.schema.json refuses a port that is not one, and an operator token libs/config would refuse', () => {
    expect(validateValues(mergedValues(['ci/minimal-values.yaml', writeValues('config:\n  OPERATOR_PORT: "80a"\n')]))).toBe(false);
    expect(validateValues(mergedValues(['ci/minimal-values.yaml', writeValues('config:\n  OPERATOR_PORT: "9000"\n')]))).toBe(true);
    expect(validateValues(mergedValues(['ci/minimal-values.yaml', writeValues(`secrets:\n  OPERATOR_TOKEN: "${'x'.repeat(31)}"\n`)]))).toBe(false);
    expect(validateValues(mergedValues(['ci/minimal-values.yaml', writeValues(`secrets:\n  OPERATOR_TOKEN: "${'x'.repeat(20)} ${'y'.repeat(20)}"\n`)]))).toBe(false);
    expect(validateValues(mergedValues(['ci/minimal-values.yaml', writeValues(`secrets:\n  OPERATOR_TOKEN: "${'x'.repeat(32)}"\n`)]))).toBe(true);
  });
});
