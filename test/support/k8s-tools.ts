// Offline rendering and validation of the Helm chart and the kustomize tree:
// test/tools/helm-render (Go text/template + sprig, built from Debian's Go
// packages), `kubectl kustomize`, and test/tools/k8s-validate (kubernetes-models).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const CHART = path.join(ROOT, 'deploy/helm/custom-domain-service');
const RENDER_DIR = path.join(ROOT, 'test/tools/helm-render');
const RENDER = path.join(RENDER_DIR, 'bin/helm-render');
const VALIDATE = path.join(ROOT, 'test/tools/k8s-validate/validate.mjs');

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  [key: string]: unknown;
}

export interface RenderedObject {
  source: string;
  object: K8sObject;
}

let built = false;

/** Builds helm-render once per test file (go's cache makes repeats quick). */
export function buildHelmRender(): void {
  if (built) return;
  execFileSync('bash', [path.join(RENDER_DIR, 'build.sh'), RENDER], { stdio: ['ignore', 'inherit', 'inherit'] });
  built = true;
}

function runRender(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  buildHelmRender();
  const result = spawnSync(RENDER, args, { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const valueArgs = (files: readonly string[]) => files.flatMap((f) => ['-f', path.resolve(CHART, f)]);

/** Writes a values file of `text` in a directory of its own under the system's temp directory; its path. */
export function writeValues(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'cds-values-')), 'values.yaml');
  writeFileSync(file, text);
  return file;
}

/** `helm template` of the chart with these values files (relative to the chart); throws with the tool's message on failure. */
export function renderChart(valueFiles: readonly string[], release = 'release', namespace = 'default'): RenderedObject[] {
  const result = runRender(['-chart', CHART, '-release', release, '-namespace', namespace, '-json', ...valueArgs(valueFiles)]);
  if (result.status !== 0) throw new Error(`chart render failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as RenderedObject[];
}

/** The error text of a render that must fail. */
export function renderFailure(valueFiles: readonly string[]): string {
  const result = runRender(['-chart', CHART, '-json', ...valueArgs(valueFiles)]);
  if (result.status === 0) throw new Error('the render succeeded');
  return result.stderr;
}

/** The values the templates see: values.yaml merged with the files, as Helm merges them. */
export function mergedValues(valueFiles: readonly string[]): Record<string, unknown> {
  const result = runRender(['-chart', CHART, '-values', ...valueArgs(valueFiles)]);
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** `kubectl kustomize <dir>` (offline), parsed. */
export function kustomize(dir: string): K8sObject[] {
  const yaml = execFileSync('kubectl', ['kustomize', path.resolve(ROOT, dir)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return yamlDocuments<K8sObject>(yaml);
}

/** The documents of a YAML text, parsed (helm-render's converter). */
export function yamlDocuments<T>(yaml: string): T[] {
  const result = runRender(['-yaml-to-json'], yaml);
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as T[];
}

/** Schema problems of each object (empty when all are valid Kubernetes or Prometheus Operator objects). */
export function validateObjects(objects: readonly K8sObject[]): string[] {
  // Through a file: a piped stdin read at once fails now and then with EAGAIN on a busy machine.
  const dir = mkdtempSync(path.join(tmpdir(), 'k8s-validate-'));
  const file = path.join(dir, 'objects.json');
  writeFileSync(file, JSON.stringify(objects));
  const result = spawnSync('node', [VALIDATE, file], { encoding: 'utf8', cwd: ROOT });
  rmSync(dir, { recursive: true, force: true });
  const lines = result.stdout.trim().split('\n');
  const problems = lines.slice(0, -1);
  if (result.status !== 0 && problems.length === 0) return [`validator failed: ${result.stderr || result.stdout}`];
  return problems;
}

export function ofKind(objects: readonly K8sObject[], kind: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind);
}
