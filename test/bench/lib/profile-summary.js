// Flame summary of a V8 CPU profile (.cpuprofile, from --cpu-prof or the
// inspector): self time by function and by where its code lives (a package
// under node_modules, a library or service of ours, node's internals), as
// Markdown. Usage: node test/bench/lib/profile-summary.js <file.cpuprofile> [top=15]
'use strict';
const { readFileSync } = require('node:fs');

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-summary.js <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 15);
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Self time per node: the samples' time deltas credited to the sampled node.
const selfUs = new Map();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** Where a function's code lives. */
function place(url) {
  if (!url) return '(native or idle)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/(libs|services)\/([^/]+)\//.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.startsWith('node:')) return 'node internals';
  return url.replace(/^file:\/\//, '').split('/').slice(-2).join('/');
}

const byFunction = new Map();
const byPlace = new Map();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (us === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = place(url);
  const key = `${functionName || '(anonymous)'} (${where}${url ? `:${lineNumber + 1}` : ''})`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  byPlace.set(where, (byPlace.get(where) ?? 0) + us);
}

const pct = (us) => `${((100 * us) / total).toFixed(1)} %`;
const rows = (map) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, us]) => `| ${k} | ${(us / 1000).toFixed(0)} | ${pct(us)} |`).join('\n');
process.stdout.write(`Profile ${file.split('/').pop()}: ${(total / 1000).toFixed(0)} ms sampled.

| where the code lives | self ms | share |
|---|---|---|
${rows(byPlace)}

| function (self time) | self ms | share |
|---|---|---|
${rows(byFunction)}
`);
