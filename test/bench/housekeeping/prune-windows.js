// Splits the housekeeping benchmark's run into the part that pruned each big
// table, from sampler.js's samples: the runner prunes outbox, then
// webhook_attempts, then webhook_deliveries, so each part ends when the next
// table's deleted-row count first moves (to about a second; attempts deleted
// by the deliveries' cascade do not count). Usage:
// node prune-windows.js <samples> <run start ms> <run end ms>
// Prints one line per table: `<table> <from ms> <to ms> <WAL MiB written meanwhile, whole cluster>`.
'use strict';
const { readFileSync } = require('node:fs');

const [file, startArg, endArg] = process.argv.slice(2);
const start = Number(startArg);
const end = Number(endArg);
const samples = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => line.split(' ').map(Number));
const TABLES = ['outbox', 'webhook_attempts', 'webhook_deliveries'];

const before = samples.filter(([at]) => at <= start).pop() ?? samples[0];
/** When column `c` (1-based table index) first exceeded its count at the run's start. */
const firstMove = (c) => samples.find((s) => s[0] > start && s[c] > before[c])?.[0];
const walAt = (at) => (samples.filter(([t]) => t <= at).pop() ?? samples[0])[4];
let from = start;
TABLES.forEach((table, i) => {
  const next = i + 1 < TABLES.length ? firstMove(i + 2) : undefined;
  const to = Math.min(next ?? end, end);
  console.log(`${table} ${from} ${to} ${((walAt(to) - walAt(from)) / 1048576).toFixed(0)}`);
  from = to;
});
