// The image and the manifests agree: every program runs under the Dockerfile's
// ENTRYPOINT (tini, PID 1: it forwards SIGTERM and reaps children such as
// pg_dump), so Deployments and the migration Job give `args`, never `command`,
// and each names a program the image holds.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { kustomize, renderChart, ROOT, type K8sObject } from '../../support/k8s-tools';

const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

/** The exec (JSON) form of the Dockerfile's last ENTRYPOINT or CMD: the one the image keeps. */
function execForm(instruction: 'ENTRYPOINT' | 'CMD'): string[] {
  const last = [...dockerfile.matchAll(new RegExp(`^${instruction} (.+)$`, 'gm'))].at(-1)?.[1] ?? 'null';
  return JSON.parse(last) as string[];
}

/** A service the image builds (`node services/<name>/dist/main.js`, WORKDIR /app) or `cdctl migrate`. */
function runnable(args: readonly string[] | undefined): boolean {
  const [program, ...rest] = args ?? [];
  if (program === 'node') {
    // V8 flags (--max-semi-space-size=32 for the edge) come before the entry point.
    const flags = rest.filter((arg) => /^--[a-z-]+=\d+$/.test(arg));
    const [target, ...extra] = rest.slice(flags.length);
    const service = /^services\/([a-z-]+)\/dist\/main\.js$/.exec(target ?? '')?.[1];
    return extra.length === 0 && service !== undefined && existsSync(path.join(ROOT, 'services', service, 'src/main.ts'));
  }
  const [target, ...extra] = rest;
  return program === 'cdctl' && target === 'migrate' && extra.length === 0;
}

interface Container {
  name: string;
  command?: string[];
  args?: string[];
}

/** Every container of the Deployments and Jobs, with what it runs. */
function programs(objects: readonly K8sObject[]): Array<{ container: string; command?: string[]; args?: string[]; runnable: boolean }> {
  return objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
    .flatMap((o) =>
      (o.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers.map((c) => ({
        container: `${o.kind} ${o.metadata.name}/${c.name}`,
        command: c.command,
        args: c.args,
        runnable: runnable(c.args),
      })),
    );
}

describe('image entry point', () => {
  it('runs tini as the ENTRYPOINT, the all-in-one by default, from /app, with cdctl on the PATH', () => {
    expect(execForm('ENTRYPOINT')).toEqual(['/usr/bin/tini', '--']);
    expect(dockerfile).toMatch(/apt-get install [^\n]*\btini\b/);
    expect(execForm('CMD')).toEqual(['node', 'services/all-in-one/dist/main.js']);
    expect(runnable(execForm('CMD'))).toBe(true);
    expect([...dockerfile.matchAll(/^WORKDIR (\S+)$/gm)].at(-1)?.[1]).toBe('/app');
    expect(dockerfile).toContain('ln -s /app/services/cli/bin/cdctl.js /usr/local/bin/cdctl');
    expect(existsSync(path.join(ROOT, 'services/cli/bin/cdctl.js'))).toBe(true);
  });

  it.each([
    ['chart, ci/minimal-values.yaml', () => renderChart(['ci/minimal-values.yaml']).map((r) => r.object)],
    ['chart, ci/all-variables-values.yaml', () => renderChart(['ci/all-variables-values.yaml']).map((r) => r.object)],
    ['kustomize k8s/overlays/dev', () => kustomize('k8s/overlays/dev')],
    ['kustomize k8s/overlays/prod', () => kustomize('k8s/overlays/prod')],
  ])('%s: every container keeps the ENTRYPOINT and runs a program of the image', (_what, render) => {
    const found = programs(render());
    // Four services and the migration Job.
    expect(found).toHaveLength(5);
    for (const p of found) expect(p).toEqual({ container: p.container, command: undefined, args: p.args, runnable: true });
  });
});
