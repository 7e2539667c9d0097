// Kubernetes waits long enough for a pod to stop: every Deployment's grace
// period covers its preStop sleep plus the shutdown deadline fixed in
// libs/lifecycle, in the chart (whatever the values) and in the kustomize tree.
import { SHUTDOWN_DEADLINE_MS } from '@cds/lifecycle';
import { kustomize, ofKind, renderChart, writeValues, type K8sObject } from '../../support/k8s-tools';

const DEADLINE_SECONDS = SHUTDOWN_DEADLINE_MS / 1000;

interface PodSpec {
  terminationGracePeriodSeconds?: number;
  containers: Array<{ name: string; lifecycle?: { preStop?: { exec?: { command: string[] } } } }>;
}

/** Each container of each Deployment: its preStop sleep and the pod's grace period. */
function shutdownTimes(objects: readonly K8sObject[]): Array<{ container: string; preStop: number; grace: number | undefined }> {
  return ofKind(objects, 'Deployment').flatMap((d) => {
    const spec = (d.spec as { template: { spec: PodSpec } }).template.spec;
    return spec.containers.map((c) => {
      const [program, seconds] = c.lifecycle?.preStop?.exec?.command ?? [];
      expect([d.metadata.name, program]).toEqual([d.metadata.name, 'sleep']);
      return { container: `${d.metadata.name}/${c.name}`, preStop: Number(seconds), grace: spec.terminationGracePeriodSeconds };
    });
  });
}

function expectGraceCoversShutdown(objects: readonly K8sObject[]): void {
  const times = shutdownTimes(objects);
  expect(times).toHaveLength(4);
  for (const { container, preStop, grace } of times) {
    expect({ container, preStop: Number.isInteger(preStop), grace: Number.isInteger(grace) }).toEqual({ container, preStop: true, grace: true });
    expect({ container, grace, atLeast: preStop + DEADLINE_SECONDS, covered: (grace ?? 0) >= preStop + DEADLINE_SECONDS }).toEqual({
      container, grace, atLeast: preStop + DEADLINE_SECONDS, covered: true,
    });
  }
}

describe('grace period and shutdown deadline', () => {
  it('reads a deadline from the code that leaves time to drain', () => {
    expect(DEADLINE_SECONDS).toBeGreaterThanOrEqual(10);
  });

  it.each(['ci/minimal-values.yaml', 'ci/existing-secret-values.yaml', 'ci/all-variables-values.yaml'])('chart with %s', (file) => {
    expectGraceCoversShutdown(renderChart([file]).map((r) => r.object));
  });

  it('chart with a longer preStop sleep: the grace period grows with it', () => {
    const file = writeValues('shutdown:\n  preStopSeconds: 20\n');
    const objects = renderChart(['ci/minimal-values.yaml', file]).map((r) => r.object);
    expect(new Set(shutdownTimes(objects).map((t) => t.preStop))).toEqual(new Set([20]));
    expectGraceCoversShutdown(objects);
  });

  it.each(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/prod'])('kustomize %s', (dir) => {
    expectGraceCoversShutdown(kustomize(dir));
  });
});
