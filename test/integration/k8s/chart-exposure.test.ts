// How each part is reached, in the chart and the kustomize tree: the
// application API through an optional Ingress that routes /v1, /v1/openapi.json
// and /domains only (never /operator); the operator API on OPERATOR_PORT behind
// its own ClusterIP Service; the edge on a LoadBalancer that keeps client
// addresses (externalTrafficPolicy: Local, or PROXY protocol when enabled).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { CHART, kustomize, mergedValues, ofKind, renderChart, renderFailure, ROOT, validateObjects, writeValues, type K8sObject } from '../../support/k8s-tools';

const DEFAULT_FILES = ['ci/minimal-values.yaml', 'ci/existing-secret-values.yaml', 'ci/all-variables-values.yaml'];
const INGRESS_FILE = 'ci/ingress-values.yaml';
const APP_PATHS = [
  { path: '/v1', pathType: 'Prefix' },
  { path: '/v1/openapi.json', pathType: 'Exact' },
  { path: '/domains', pathType: 'Prefix' },
];

const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as object;
const validateValues = new Ajv({ strict: false, allErrors: true }).compile(schema);

interface IngressPath {
  path: string;
  pathType: string;
  backend: { service: { name: string; port: { number?: number; name?: string } } };
}
interface IngressSpec {
  ingressClassName?: string;
  tls?: Array<{ secretName: string; hosts: string[] }>;
  rules: Array<{ host?: string; http: { paths: IngressPath[] } }>;
}
interface ServiceSpec {
  type?: string;
  externalTrafficPolicy?: string;
  selector: Record<string, string>;
  ports: Array<{ name: string; port: number; targetPort: string | number }>;
}
interface Container {
  ports?: Array<{ name: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string } }>;
}
interface PolicyRule {
  from?: unknown[];
  ports: Array<{ port: string | number }>;
}

const chart = (files: readonly string[]) => renderChart(files).map((r) => r.object);
const named = (objects: readonly K8sObject[], kind: string, name: string) => ofKind(objects, kind).find((o) => o.metadata.name === name);
const serviceSpec = (o: K8sObject | undefined) => o?.spec as ServiceSpec | undefined;
const ingressPaths = (objects: readonly K8sObject[]) =>
  ofKind(objects, 'Ingress').flatMap((i) => (i.spec as unknown as IngressSpec).rules.flatMap((r) => r.http.paths));

/** Whether an Ingress path sends a request for `requestPath` to its backend (Prefix matches whole path elements). */
function routes(p: Pick<IngressPath, 'path' | 'pathType'>, requestPath: string): boolean {
  if (p.pathType === 'Exact') return p.path === requestPath;
  const prefix = p.path.replace(/\/+$/, '');
  return prefix === '' || requestPath === prefix || requestPath.startsWith(`${prefix}/`);
}

const OPERATOR_REQUESTS = ['/operator', '/operator/v1', '/operator/v1/applications', '/operator/v1/token'];
const expectNoOperatorRoute = (objects: readonly K8sObject[]) => {
  const leaks = ingressPaths(objects).flatMap((p) => OPERATOR_REQUESTS.filter((r) => routes(p, r)).map((r) => `${p.path} routes ${r}`));
  expect(leaks).toEqual([]);
};

/** The environment a Deployment's container sees: its ConfigMaps (envFrom), then its env values. */
function containerEnv(objects: readonly K8sObject[], deployment: K8sObject): Record<string, string | undefined> {
  const [container] = (deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers as [Container];
  const fromMaps = (container.envFrom ?? []).map((e) => named(objects, 'ConfigMap', e.configMapRef?.name ?? '')?.data ?? {});
  return Object.assign({}, ...fromMaps, Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value])));
}

/** The container port a Service port's targetPort lands on, in the pods its selector picks. */
function targetContainerPort(objects: readonly K8sObject[], service: K8sObject, portName: string): number | undefined {
  const spec = serviceSpec(service) as ServiceSpec;
  const target = spec.ports.find((p) => p.name === portName)?.targetPort;
  if (typeof target === 'number') return target;
  const pods = ofKind(objects, 'Deployment').filter((d) => {
    const labels = (d.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    return Object.entries(spec.selector).every(([k, v]) => labels[k] === v);
  });
  const ports = pods.map((d) => (d.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]?.ports?.find((p) => p.name === target)?.containerPort);
  return ports.length === 1 ? ports[0] : undefined;
}

/** What every test of the operator Service holds: OPERATOR_PORT set in each api Deployment, and the Service lands on it. */
function expectOperatorServiceOnOperatorPort(objects: readonly K8sObject[], apiDeployment: string, operatorService: string, apiService: string): void {
  const apis = ofKind(objects, 'Deployment').filter((d) => d.metadata.name === apiDeployment);
  expect(apis).toHaveLength(1);
  for (const api of apis) {
    const port = Number(containerEnv(objects, api).OPERATOR_PORT);
    expect(Number.isInteger(port) && port > 0).toBe(true);
    const service = named(objects, 'Service', operatorService) as K8sObject;
    expect(serviceSpec(service)?.type).toBe('ClusterIP');
    expect(targetContainerPort(objects, service, 'operator')).toBe(port);
    // The application's Service carries the API port only.
    const application = named(objects, 'Service', apiService) as K8sObject;
    expect(serviceSpec(application)?.ports.map((p) => targetContainerPort(objects, application, p.name))).toEqual([Number(containerEnv(objects, api).API_PORT)]);
  }
}

describe('chart: exposure', () => {
  it.each(DEFAULT_FILES)('%s: no Ingress by default, so nothing routes /operator', (file) => {
    const objects = chart([file]);
    expect(ofKind(objects, 'Ingress')).toEqual([]);
    expectNoOperatorRoute(objects);
  });

  it('ci/ingress-values.yaml: the Ingress routes the application paths to the api Service, never /operator, and validates', () => {
    expect(validateValues(mergedValues([INGRESS_FILE])) ? [] : validateValues.errors).toEqual([]);
    const objects = chart([INGRESS_FILE]);
    expect(validateObjects(objects)).toEqual([]);
    const [ingress, ...others] = ofKind(objects, 'Ingress');
    expect(others).toEqual([]);
    expect(ingress?.metadata.annotations).toEqual({ 'cert-manager.io/cluster-issuer': 'letsencrypt' });
    const spec = ingress?.spec as unknown as IngressSpec;
    expect(spec.ingressClassName).toBe('nginx');
    expect(spec.tls).toEqual([{ secretName: 'cds-api-tls', hosts: ['api.domains.example.com'] }]);
    expect(spec.rules.map((r) => r.host)).toEqual(['api.domains.example.com']);
    const api = serviceSpec(named(objects, 'Service', 'release-custom-domain-service-api'));
    for (const p of ingressPaths(objects)) {
      expect(p.backend).toEqual({ service: { name: 'release-custom-domain-service-api', port: { number: api?.ports[0]?.port } } });
    }
    expect(ingressPaths(objects).map(({ path: p, pathType }) => ({ path: p, pathType }))).toEqual(APP_PATHS);
    expect(ingressPaths(objects).some((p) => p.path.startsWith('/operator'))).toBe(false);
    expectNoOperatorRoute(objects);
    // The application API is routed.
    for (const request of ['/v1/domains', '/v1/openapi.json', '/domains/abc']) expect([request, ingressPaths(objects).some((p) => routes(p, request))]).toEqual([request, true]);
  });

  it('the Ingress without hosts answers any host, still without /operator', () => {
    const objects = chart(['ci/minimal-values.yaml', writeValues('config:\n  TRUST_PROXY: "10.42.0.0/16"\ningress:\n  enabled: true\n')]);
    const spec = ofKind(objects, 'Ingress')[0]?.spec as unknown as IngressSpec;
    expect(spec.rules.map((r) => r.host)).toEqual([undefined]);
    expect(spec.ingressClassName).toBeUndefined();
    expectNoOperatorRoute(objects);
    expect(validateObjects(objects)).toEqual([]);
  });

  describe('TRUST_PROXY behind the Ingress', () => {
    const REFUSAL = 'ingress.enabled needs config.TRUST_PROXY';
    const valid = (text: string) => validateValues(mergedValues(['ci/minimal-values.yaml', writeValues(text)]));

    it('ci/ingress-values.yaml names the one ingress hop, and only the ingress controller reaches the API port', () => {
      const objects = chart([INGRESS_FILE]);
      const api = named(objects, 'Deployment', 'release-custom-domain-service-api') as K8sObject;
      expect(containerEnv(objects, api).TRUST_PROXY).toBe('1');
      const rules = (named(objects, 'NetworkPolicy', 'release-custom-domain-service-api')?.spec as { ingress: PolicyRule[] }).ingress;
      expect(rules.filter((r) => r.ports.some((p) => p.port === 'api')).map((r) => r.from)).toEqual([[{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }]]);
    });

    it.each([
      ['at its default (empty)', 'ingress:\n  enabled: true\n'],
      ['blank', 'config:\n  TRUST_PROXY: " "\ningress:\n  enabled: true\n'],
      ['false', 'config:\n  TRUST_PROXY: "false"\ningress:\n  enabled: true\n'],
      ['0', 'config:\n  TRUST_PROXY: "0"\ningress:\n  enabled: true\n'],
    ])('an enabled Ingress with TRUST_PROXY %s: the chart refuses to render and the schema refuses the values', (_case, text) => {
      expect(renderFailure(['ci/minimal-values.yaml', writeValues(text)])).toContain(REFUSAL);
      expect(valid(text)).toBe(false);
    });

    it('accepts a hop count or the controller\'s range, and TRUST_PROXY unset without an Ingress', () => {
      for (const trust of ['"1"', '"10.42.0.0/16"', '2']) {
        const text = `config:\n  TRUST_PROXY: ${trust}\ningress:\n  enabled: true\n`;
        expect([trust, valid(text)]).toEqual([trust, true]);
        expect(ofKind(chart(['ci/minimal-values.yaml', writeValues(text)]), 'Ingress')).toHaveLength(1);
      }
      expect(valid('config:\n  TRUST_PROXY: ""\n')).toBe(true);
    });

    it('the schema refuses TRUST_PROXY=true, Ingress or not (libs/config refuses it at start too)', () => {
      for (const trust of ['"true"', 'true', '"TRUE"', '" True "']) {
        expect([trust, valid(`config:\n  TRUST_PROXY: ${trust}\n`)]).toEqual([trust, false]);
        expect([trust, valid(`config:\n  TRUST_PROXY: ${trust}\ningress:\n  enabled: true\n`)]).toEqual([trust, false]);
      }
    });
  });

  it.each([...DEFAULT_FILES, INGRESS_FILE])('%s: OPERATOR_PORT is set in the api Deployment and the operator Service targets it', (file) => {
    expectOperatorServiceOnOperatorPort(chart([file]), 'release-custom-domain-service-api', 'release-custom-domain-service-operator', 'release-custom-domain-service-api');
  });

  it('follows OPERATOR_PORT and api.operatorService.port; with OPERATOR_PORT unset there is no operator Service', () => {
    const objects = chart(['ci/minimal-values.yaml', writeValues('config:\n  OPERATOR_PORT: "9100"\napi:\n  operatorService: { port: 8443 }\n')]);
    expectOperatorServiceOnOperatorPort(objects, 'release-custom-domain-service-api', 'release-custom-domain-service-operator', 'release-custom-domain-service-api');
    expect(serviceSpec(named(objects, 'Service', 'release-custom-domain-service-operator'))?.ports.map((p) => p.port)).toEqual([8443]);
    const unset = chart(['ci/minimal-values.yaml', writeValues('config:\n  OPERATOR_PORT: ""\n')]);
    expect(named(unset, 'Service', 'release-custom-domain-service-operator')).toBeUndefined();
  });

  it.each(['ci/minimal-values.yaml', 'ci/existing-secret-values.yaml', INGRESS_FILE])('%s: the edge Service is a LoadBalancer with externalTrafficPolicy Local', (file) => {
    const edge = serviceSpec(named(chart([file]), 'Service', 'release-custom-domain-service-edge-proxy'));
    expect({ type: edge?.type, externalTrafficPolicy: edge?.externalTrafficPolicy }).toEqual({ type: 'LoadBalancer', externalTrafficPolicy: 'Local' });
  });

  describe('PROXY protocol to the edge', () => {
    const EDGE = 'release-custom-domain-service-edge-proxy';
    const edgeEnv = (objects: readonly K8sObject[]) => containerEnv(objects, named(objects, 'Deployment', EDGE) as K8sObject);

    it('is off by default: no EDGE_PROXY_PROTOCOL, no balancer annotation', () => {
      expect((mergedValues([]).edgeProxy as { proxyProtocol: { enabled: boolean } }).proxyProtocol.enabled).toBe(false);
      const objects = chart(['ci/minimal-values.yaml', writeValues('edgeProxy:\n  proxyProtocol: { serviceAnnotations: { a.example/proxy: "on" } }\n')]);
      expect(edgeEnv(objects).EDGE_PROXY_PROTOCOL).toBeUndefined();
      expect(named(objects, 'Service', EDGE)?.metadata.annotations).toBeUndefined();
    });

    it('enabled: the edge pods get EDGE_PROXY_PROTOCOL=true and the trusted ranges, the Service the balancer annotations', () => {
      const values = writeValues([
        'config:\n  EDGE_PROXY_PROTOCOL_CIDRS: "10.0.0.0/8"',
        'edgeProxy:',
        '  service: { annotations: { team.example/owner: edge } }',
        '  proxyProtocol: { enabled: true, serviceAnnotations: { service.beta.kubernetes.io/aws-load-balancer-proxy-protocol: "*" } }',
        '',
      ].join('\n'));
      expect(validateValues(mergedValues(['ci/minimal-values.yaml', values])) ? [] : validateValues.errors).toEqual([]);
      const objects = chart(['ci/minimal-values.yaml', values]);
      expect(validateObjects(objects)).toEqual([]);
      expect(edgeEnv(objects)).toMatchObject({ EDGE_PROXY_PROTOCOL: 'true', EDGE_PROXY_PROTOCOL_CIDRS: '10.0.0.0/8' });
      expect(named(objects, 'Service', EDGE)?.metadata.annotations).toEqual({ 'team.example/owner': 'edge', 'service.beta.kubernetes.io/aws-load-balancer-proxy-protocol': '*' });
      // Only the edge reads it.
      const others = ofKind(objects, 'Deployment').filter((d) => d.metadata.name !== EDGE);
      expect(others.map((d) => containerEnv(objects, d).EDGE_PROXY_PROTOCOL)).toEqual([undefined, undefined, undefined]);
    });

    it('refuses config.EDGE_PROXY_PROTOCOL when it disagrees with edgeProxy.proxyProtocol.enabled', () => {
      expect(renderFailure(['ci/minimal-values.yaml', writeValues('config:\n  EDGE_PROXY_PROTOCOL: "true"\n')])).toContain('config.EDGE_PROXY_PROTOCOL disagrees with edgeProxy.proxyProtocol.enabled');
      const agreeing = writeValues('config:\n  EDGE_PROXY_PROTOCOL: "true"\n  EDGE_PROXY_PROTOCOL_CIDRS: "10.0.16.0/20"\nedgeProxy:\n  proxyProtocol: { enabled: true }\n');
      expect(edgeEnv(chart(['ci/minimal-values.yaml', agreeing])).EDGE_PROXY_PROTOCOL).toBe('true');
    });

    it('enabled, refuses to render until config.EDGE_PROXY_PROTOCOL_CIDRS names the balancer ranges (the service default trusts every private range)', () => {
      const message = 'edgeProxy.proxyProtocol.enabled needs config.EDGE_PROXY_PROTOCOL_CIDRS: name the ranges the load balancer connects from';
      expect(renderFailure(['ci/minimal-values.yaml', writeValues('edgeProxy:\n  proxyProtocol: { enabled: true }\n')])).toContain(message);
      expect(renderFailure(['ci/minimal-values.yaml', writeValues('config:\n  EDGE_PROXY_PROTOCOL_CIDRS: " "\nedgeProxy:\n  proxyProtocol: { enabled: true }\n')])).toContain(message);
      const ranges = writeValues('config:\n  EDGE_PROXY_PROTOCOL_CIDRS: "10.0.16.0/20,fd00:16::/64"\nedgeProxy:\n  proxyProtocol: { enabled: true }\n');
      expect(edgeEnv(chart(['ci/minimal-values.yaml', ranges]))).toMatchObject({ EDGE_PROXY_PROTOCOL: 'true', EDGE_PROXY_PROTOCOL_CIDRS: '10.0.16.0/20,fd00:16::/64' });
    });
  });

  it('NetworkPolicy: the operator port from operatorFrom (by default the namespace), the API port from apiFrom', () => {
    const rulesOf = (objects: readonly K8sObject[]) => (named(objects, 'NetworkPolicy', 'release-custom-domain-service-api')?.spec as { ingress: PolicyRule[] }).ingress;
    const forPort = (rules: PolicyRule[], port: string) => rules.filter((r) => r.ports.some((p) => p.port === port));
    const defaults = rulesOf(chart(['ci/minimal-values.yaml']));
    expect(forPort(defaults, 'operator')).toEqual([{ from: [{ podSelector: {} }], ports: [{ port: 'operator', protocol: 'TCP' }] }]);
    expect(forPort(defaults, 'api')).toEqual([{ ports: [{ port: 'api', protocol: 'TCP' }] }]);
    const tight = rulesOf(chart([INGRESS_FILE]));
    expect(forPort(tight, 'operator').map((r) => r.from)).toEqual([[{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'platform-ops' } } }]]);
    expect(forPort(tight, 'api').map((r) => r.from)).toEqual([[{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }]]);
    // Only the api pods take operator traffic.
    const others = ofKind(chart(['ci/minimal-values.yaml']), 'NetworkPolicy').filter((p) => p.metadata.name !== 'release-custom-domain-service-api');
    expect(others.map((p) => JSON.stringify(p.spec).includes('operator'))).toEqual([false, false, false]);
  });
});

describe('kustomize: exposure', () => {
  it.each(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/prod'])('%s: OPERATOR_PORT is set in the api Deployment and cds-operator targets it', (dir) => {
    const objects = kustomize(dir);
    expectOperatorServiceOnOperatorPort(objects, 'cds-api', 'cds-operator', 'cds-api');
    // The chart's default: the operator API never shares the public API port.
    expect(containerEnv(objects, named(objects, 'Deployment', 'cds-api') as K8sObject).OPERATOR_PORT).toBe('8082');
  });

  it.each(['k8s/base', 'k8s/overlays/prod'])('%s: the edge Service is a LoadBalancer with externalTrafficPolicy Local', (dir) => {
    const edge = serviceSpec(named(kustomize(dir), 'Service', 'cds-edge-proxy'));
    expect({ type: edge?.type, externalTrafficPolicy: edge?.externalTrafficPolicy }).toEqual({ type: 'LoadBalancer', externalTrafficPolicy: 'Local' });
  });

  it.each(['k8s/base', 'k8s/overlays/dev'])('%s: no Ingress', (dir) => {
    const objects = kustomize(dir);
    expect(ofKind(objects, 'Ingress')).toEqual([]);
    expectNoOperatorRoute(objects);
  });

  it('prod believes the one ingress hop (TRUST_PROXY=1) and admits only the ingress controller to the API port', () => {
    const objects = kustomize('k8s/overlays/prod');
    expect(containerEnv(objects, named(objects, 'Deployment', 'cds-api') as K8sObject).TRUST_PROXY).toBe('1');
    const rules = (named(objects, 'NetworkPolicy', 'cds-api')?.spec as { ingress: PolicyRule[] }).ingress;
    expect(rules.filter((r) => r.ports.some((p) => p.port === 'api')).map((r) => r.from)).toEqual([[{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }]]);
    // The base, without the Ingress, believes no proxy.
    expect(containerEnv(kustomize('k8s/base'), named(kustomize('k8s/base'), 'Deployment', 'cds-api') as K8sObject).TRUST_PROXY).toBeUndefined();
  });

  it('prod publishes the application API through the ingress component: its paths only, never /operator, valid', () => {
    const objects = kustomize('k8s/overlays/prod');
    expect(validateObjects(objects)).toEqual([]);
    const [ingress, ...others] = ofKind(objects, 'Ingress');
    expect(others).toEqual([]);
    const spec = ingress?.spec as unknown as IngressSpec;
    expect(spec.rules.map((r) => r.host)).toEqual(['api.saas.example.com']);
    expect(spec.tls).toEqual([{ secretName: 'cds-api-tls', hosts: ['api.saas.example.com'] }]);
    expect(ingressPaths(objects).map(({ path: p, pathType }) => ({ path: p, pathType }))).toEqual(APP_PATHS);
    for (const p of ingressPaths(objects)) expect(p.backend).toEqual({ service: { name: 'cds-api', port: { number: 80 } } });
    expectNoOperatorRoute(objects);
  });

  it('k8s/components/ingress is the Ingress the chart renders for release "cds"', () => {
    const fromChart = ofKind(renderChart([path.join(ROOT, 'test/fixtures/helm/kustomize-ingress-values.yaml')], 'cds').map((r) => r.object), 'Ingress');
    const fromKustomize = ofKind(kustomize('k8s/components/ingress'), 'Ingress');
    expect(fromKustomize.map((i) => [i.metadata.name, i.spec])).toEqual(fromChart.map((i) => [i.metadata.name, i.spec]));
  });
});
