// Validates Kubernetes objects (a JSON array on stdin) against the API
// schemas in kubernetes-models and @kubernetes-models/prometheus-operator.
// Prints one line per invalid or unknown object and exits 1 if there is any.
// An ES module run by node: both packages are ESM only, which jest's CommonJS transform cannot load.
import { readFileSync } from 'node:fs';
import process from 'node:process';

const CRD_GROUPS = { 'monitoring.coreos.com': '@kubernetes-models/prometheus-operator' };

async function modelOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : [null, apiVersion];
  const pkg = (group && CRD_GROUPS[group]) ?? 'kubernetes-models';
  const path = group ? `${pkg}/${group}/${version}/${kind}` : `${pkg}/${version}/${kind}`;
  const mod = await import(path);
  return mod[kind];
}

// A file named on the command line (reading a piped stdin at once can fail with EAGAIN), else stdin.
const objects = JSON.parse(readFileSync(process.argv[2] ?? 0, 'utf8'));
const problems = [];
for (const object of objects) {
  const name = `${object.apiVersion}/${object.kind} ${object.metadata?.name ?? '(no name)'}`;
  let Model;
  try {
    Model = await modelOf(object.apiVersion, object.kind);
  } catch {
    problems.push(`${name}: unknown apiVersion/kind`);
    continue;
  }
  if (!Model) {
    problems.push(`${name}: unknown kind`);
    continue;
  }
  try {
    new Model(object).validate();
  } catch (error) {
    problems.push(`${name}: ${error.message}`);
  }
}
for (const line of problems) process.stdout.write(`${line}\n`);
process.stdout.write(`${objects.length} objects, ${problems.length} invalid\n`);
process.exit(problems.length > 0 ? 1 : 0);
