// What visitors reach the edge by: the edge Service's ports, the HTTPS port the
// edge writes into its redirects (EDGE_PUBLIC_HTTPS_PORT, the Service's 443,
// not the container's EDGE_HTTPS_PORT), and the load balancer's address, which
// can be a reserved one so that EDGE_TARGET's records outlive the Service.
import { kustomize, ofKind, renderChart, validateObjects, writeValues, type K8sObject } from '../../support/k8s-tools';

interface ServiceSpec {
  type: string;
  loadBalancerIP?: string;
  loadBalancerClass?: string;
  ports: Array<{ name: string; port: number; targetPort: string }>;
}
interface Container {
  ports: Array<{ name: string; containerPort: number }>;
  envFrom: Array<{ configMapRef: { name: string } }>;
}

const edgeOf = (objects: readonly K8sObject[]) => {
  const service = ofKind(objects, 'Service').find((s) => /-edge-proxy$/.test(s.metadata.name)) as K8sObject;
  const deployment = ofKind(objects, 'Deployment').find((d) => d.metadata.labels?.['app.kubernetes.io/component'] === 'edge-proxy') as K8sObject;
  const container = (deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0] as Container;
  const settings = Object.assign({}, ...container.envFrom.map((e) => ofKind(objects, 'ConfigMap').find((c) => c.metadata.name === e.configMapRef.name)?.data ?? {})) as Record<string, string>;
  return { service: service.spec as unknown as ServiceSpec, container, settings };
};

describe('edge ports and redirects', () => {
  it.each(['ci/minimal-values.yaml', 'ci/existing-secret-values.yaml', 'ci/all-variables-values.yaml', 'k8s/base', 'k8s/overlays/prod'])(
    '%s: redirects name the edge Service\'s HTTPS port, which lands on EDGE_HTTPS_PORT',
    (source) => {
      const objects = source.startsWith('k8s/') ? kustomize(source) : renderChart([source]).map((r) => r.object);
      const { service, container, settings } = edgeOf(objects);
      const https = service.ports.find((p) => p.name === 'https');
      expect(https?.port).toBe(443);
      expect(settings.EDGE_PUBLIC_HTTPS_PORT).toBe(String(https?.port));
      // The Service maps 443 to the container's port, which is EDGE_HTTPS_PORT, a port visitors never see.
      expect(container.ports.find((p) => p.name === https?.targetPort)?.containerPort).toBe(Number(settings.EDGE_HTTPS_PORT));
      expect(settings.EDGE_HTTPS_PORT).not.toBe(settings.EDGE_PUBLIC_HTTPS_PORT);
    },
  );
});

describe("the edge load balancer's address", () => {
  it('is left to the cloud by default', () => {
    const { service } = edgeOf(renderChart(['ci/minimal-values.yaml']).map((r) => r.object));
    expect([service.type, service.loadBalancerIP, service.loadBalancerClass]).toEqual(['LoadBalancer', undefined, undefined]);
  });

  it('takes a reserved address and a balancer class, into valid objects', () => {
    const values = writeValues('edgeProxy:\n  service:\n    type: LoadBalancer\n    loadBalancerIP: 203.0.113.10\n    loadBalancerClass: service.k8s.aws/nlb\n');
    const objects = renderChart(['ci/minimal-values.yaml', values]).map((r) => r.object);
    const { service } = edgeOf(objects);
    expect([service.loadBalancerIP, service.loadBalancerClass]).toEqual(['203.0.113.10', 'service.k8s.aws/nlb']);
    expect(validateObjects(objects)).toEqual([]);
  });

  it('has neither on a Service that is not a LoadBalancer', () => {
    const values = writeValues('edgeProxy:\n  service:\n    type: NodePort\n    loadBalancerIP: 203.0.113.10\n');
    const { service } = edgeOf(renderChart(['ci/minimal-values.yaml', values]).map((r) => r.object));
    expect([service.type, service.loadBalancerIP]).toEqual(['NodePort', undefined]);
  });
});
