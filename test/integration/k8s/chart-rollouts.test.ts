// Rollouts and node drains keep every service up: each Deployment has a
// PodDisruptionBudget over its own pods, pods spread over zones and nodes
// (best effort), and the edge sleeps through its load balancer's health-check
// window before it stops accepting, its grace period covering that sleep, the
// shutdown deadline and a margin. In the chart and in the kustomize tree.
import { SHUTDOWN_DEADLINE_MS } from '@cds/lifecycle';
import { kustomize, mergedValues, ofKind, renderChart, writeValues, type K8sObject } from '../../support/k8s-tools';

const SOURCES = ['ci/minimal-values.yaml', 'ci/existing-secret-values.yaml', 'ci/all-variables-values.yaml', 'ci/ingress-values.yaml', 'k8s/base', 'k8s/overlays/prod'];
const DEADLINE_SECONDS = SHUTDOWN_DEADLINE_MS / 1000;

interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: string;
  labelSelector: { matchLabels: Record<string, string> };
}
interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: {
    terminationGracePeriodSeconds: number;
    topologySpreadConstraints?: SpreadConstraint[];
    containers: Array<{ lifecycle: { preStop: { exec: { command: string[] } } } }>;
  };
}

const objectsOf = (source: string, extra: string[] = []) => (source.startsWith('k8s/') ? kustomize(source) : renderChart([source, ...extra]).map((r) => r.object));
const template = (d: K8sObject) => (d.spec as { template: PodTemplate }).template;
const component = (d: K8sObject) => d.metadata.labels?.['app.kubernetes.io/component'] ?? '';
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
const preStopOf = (d: K8sObject) => Number(template(d).spec.containers[0]?.lifecycle.preStop.exec.command[1]);

describe('PodDisruptionBudgets', () => {
  it.each(SOURCES)('%s: every Deployment has exactly one, over its own pods, letting one go at a time', (source) => {
    const objects = objectsOf(source);
    const budgets = ofKind(objects, 'PodDisruptionBudget').map((p) => p.spec as { maxUnavailable: number; selector: { matchLabels: Record<string, string> } });
    const deployments = ofKind(objects, 'Deployment');
    expect(deployments).toHaveLength(4);
    for (const d of deployments) {
      const covering = budgets.filter((b) => matches(b.selector.matchLabels, template(d).metadata.labels));
      expect({ deployment: d.metadata.name, maxUnavailable: covering.map((b) => b.maxUnavailable) }).toEqual({ deployment: d.metadata.name, maxUnavailable: [1] });
      // No budget reaches into another service's pods.
      const others = deployments.filter((o) => o !== d && covering.some((b) => matches(b.selector.matchLabels, template(o).metadata.labels)));
      expect(others.map((o) => o.metadata.name)).toEqual([]);
    }
    expect(budgets).toHaveLength(4);
  });

  it('follows each service being turned off', () => {
    const objects = renderChart(['ci/minimal-values.yaml', writeValues('webhookDispatcher:\n  enabled: false\n')]).map((r) => r.object);
    expect(ofKind(objects, 'PodDisruptionBudget').map((p) => p.metadata.name)).toEqual([
      'release-custom-domain-service-api', 'release-custom-domain-service-checker', 'release-custom-domain-service-edge-proxy',
    ]);
  });
});

describe('topology spread', () => {
  it.each(SOURCES)('%s: every service spreads its own pods over zones, then nodes, without ever leaving one pending', (source) => {
    for (const d of ofKind(objectsOf(source), 'Deployment')) {
      const { metadata, spec } = template(d);
      const constraints = spec.topologySpreadConstraints ?? [];
      expect({ deployment: d.metadata.name, keys: constraints.map((c) => c.topologyKey) }).toEqual({
        deployment: d.metadata.name, keys: ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'],
      });
      for (const c of constraints) {
        expect({ maxSkew: c.maxSkew, whenUnsatisfiable: c.whenUnsatisfiable }).toEqual({ maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' });
        // Its own pods only: the selector is the Deployment's own.
        expect(c.labelSelector.matchLabels).toEqual((d.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels);
        expect(matches(c.labelSelector.matchLabels, metadata.labels)).toBe(true);
        expect(c.labelSelector.matchLabels['app.kubernetes.io/component']).toBe(component(d));
      }
    }
  });

  it('can be turned off or given other keys', () => {
    const off = renderChart(['ci/minimal-values.yaml', writeValues('topologySpread:\n  enabled: false\n')]).map((r) => r.object);
    expect(ofKind(off, 'Deployment').map((d) => template(d).spec.topologySpreadConstraints)).toEqual([undefined, undefined, undefined, undefined]);
    const racks = renderChart(['ci/minimal-values.yaml', writeValues('topologySpread:\n  enabled: true\n  maxSkew: 2\n  topologyKeys: [example.com/rack]\n')]).map((r) => r.object);
    for (const d of ofKind(racks, 'Deployment')) {
      expect(template(d).spec.topologySpreadConstraints?.map((c) => [c.topologyKey, c.maxSkew, c.whenUnsatisfiable])).toEqual([['example.com/rack', 2, 'ScheduleAnyway']]);
    }
  });
});

describe("the edge's preStop and grace period", () => {
  it('edgeProxy.preStopSeconds defaults to 20 s, a load balancer health-check window', () => {
    expect((mergedValues([]).edgeProxy as { preStopSeconds: number }).preStopSeconds).toBe(20);
  });

  it.each(SOURCES)('%s: the edge sleeps 20 s, the others 5 s, and each grace period is preStop + the shutdown deadline + 5 s', (source) => {
    const times = ofKind(objectsOf(source), 'Deployment').map((d) => ({ component: component(d), preStop: preStopOf(d), grace: template(d).spec.terminationGracePeriodSeconds }));
    expect(times.sort((a, b) => a.component.localeCompare(b.component))).toEqual([
      { component: 'api', preStop: 5, grace: 5 + DEADLINE_SECONDS + 5 },
      { component: 'checker', preStop: 5, grace: 5 + DEADLINE_SECONDS + 5 },
      { component: 'edge-proxy', preStop: 20, grace: 20 + DEADLINE_SECONDS + 5 },
      { component: 'webhook-dispatcher', preStop: 5, grace: 5 + DEADLINE_SECONDS + 5 },
    ]);
  });

  it("follows edgeProxy.preStopSeconds, and never sleeps less than shutdown.preStopSeconds", () => {
    const longer = ofKind(objectsOf('ci/minimal-values.yaml', [writeValues('edgeProxy:\n  preStopSeconds: 45\n')]), 'Deployment');
    const edge = longer.find((d) => component(d) === 'edge-proxy') as K8sObject;
    expect([preStopOf(edge), template(edge).spec.terminationGracePeriodSeconds]).toEqual([45, 45 + DEADLINE_SECONDS + 5]);
    expect(longer.filter((d) => d !== edge).map(preStopOf)).toEqual([5, 5, 5]);
    const shorter = ofKind(objectsOf('ci/minimal-values.yaml', [writeValues('shutdown:\n  preStopSeconds: 30\nedgeProxy:\n  preStopSeconds: 10\n')]), 'Deployment');
    expect(shorter.map(preStopOf)).toEqual([30, 30, 30, 30]);
  });
});
