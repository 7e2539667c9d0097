// The values snippets of docs/deploy.md, as a reader copies them: each renders
// with the chart on top of the install's own values (step 2 of "Install with
// Helm"), passes values.schema.json and gives valid objects; and the Secret the
// install's `kubectl create secret` makes holds every key the Deployments read.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { CHART, ROOT, mergedValues, ofKind, renderChart, validateObjects, writeValues, type K8sObject } from '../../support/k8s-tools';

const DOC = readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as object;
const validateValues = new Ajv({ strict: false, allErrors: true }).compile(schema);

/** The indented code blocks of the page, dedented, each cut at its blank lines (a command and a values file often share one). */
function codeBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] | null = null;
  let indent = 0;
  let previousBlank = true;
  for (const line of markdown.split('\n')) {
    const lead = line.length - line.trimStart().length;
    if (current && (line.trim() === '' || lead >= indent)) {
      current.push(line.slice(indent));
    } else {
      if (current) blocks.push(current.join('\n').trimEnd());
      current = null;
      // An indented block opens after a blank line, four columns past its list item's text (or the margin).
      if (previousBlank && line.trim() !== '' && (lead === 4 || lead === 7)) {
        current = [line.slice(lead)];
        indent = lead;
      }
    }
    previousBlank = line.trim() === '';
  }
  if (current) blocks.push(current.join('\n').trimEnd());
  return blocks.flatMap((block) => block.split(/\n\s*\n/));
}

const VALUES_KEY = /^(secrets|config|edgeProxy|image|imagePullSecrets|metrics|extraVolumes|extraVolumeMounts|extraEnv|api|ingress|networkPolicy|backup):/;
const valuesBlocks = codeBlocks(DOC).filter((b) => VALUES_KEY.test(b));
const installValues = valuesBlocks.find((b) => b.includes('existingSecret: cds-secrets')) as string;
const createSecret = codeBlocks(DOC).find((b) => b.includes('create secret generic cds-secrets')) as string;

interface SecretKeyRef {
  secret: string;
  key: string;
  optional: boolean;
}

const render = (snippet?: string) =>
  renderChart([writeValues(installValues), ...(snippet === undefined ? [] : [writeValues(snippet)])], 'cds', 'custom-domains').map((r) => r.object);

describe('docs/deploy.md values', () => {
  it('has the install values and several other snippets', () => {
    expect(installValues).toBeDefined();
    expect(valuesBlocks.length).toBeGreaterThanOrEqual(5);
  });

  it.each(valuesBlocks.map((b) => [b.split('\n').slice(0, 3).join(' / '), b]))('%s: renders, and passes the schema', (_name, snippet) => {
    const objects = render(snippet);
    expect(validateObjects(objects)).toEqual([]);
    const valid = validateValues(mergedValues([writeValues(installValues), writeValues(snippet)]));
    expect(validateValues.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("the install's Secret holds every key the Deployments and the migration Job require, by the names they read", () => {
    expect(createSecret).toBeDefined();
    const created = new Set([...createSecret.matchAll(/--from-(?:literal|file)=([A-Z_0-9]+)=/g)].map((m) => m[1]));
    const objects: K8sObject[] = render();
    expect(ofKind(objects, 'Secret')).toEqual([]);
    const refs: SecretKeyRef[] = [];
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node && typeof node === 'object') {
        const ref = (node as { secretKeyRef?: { name: string; key: string; optional?: boolean } }).secretKeyRef;
        if (ref) refs.push({ secret: ref.name, key: ref.key, optional: ref.optional === true });
        Object.values(node).forEach(collect);
      }
    };
    [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'Job')].forEach((o) => collect(o.spec));
    expect(refs.length).toBeGreaterThan(0);
    expect([...new Set(refs.map((r) => r.secret))]).toEqual(['cds-secrets']);
    const missing = [...new Set(refs.filter((r) => !r.optional && !created.has(r.key)).map((r) => r.key))];
    expect(missing).toEqual([]);
    expect([...created].filter((k) => !refs.some((r) => r.key === k))).toEqual([]);
  });
});
