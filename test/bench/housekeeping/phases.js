// Latency of the requests of the housekeeping benchmark's load (load.js's
// records) due within each window: node phases.js <records> <from> <to> [<from> <to> ...]
// (epoch ms). Prints one line per window:
// `requests=<n> errors=<answers other than 201> p50=<ms> p99=<ms> max=<ms> answered=<per second>`:
// the requests due in the window, and how many answers per second came within
// it (whenever due): about the arrival rate while the service keeps up.
// Percentiles by nearest rank, over every request (an error counts with its latency).
'use strict';
const { readFileSync } = require('node:fs');

const [file, ...bounds] = process.argv.slice(2);
if (!file || bounds.length === 0 || bounds.length % 2 !== 0) throw new Error('usage: node phases.js <records> <from> <to> [...]');
const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => line.split(' ').map(Number));

const rank = (sorted, p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
for (let i = 0; i < bounds.length; i += 2) {
  const from = Number(bounds[i]);
  const to = Number(bounds[i + 1]);
  const picked = rows.filter(([due]) => due >= from && due < to);
  const latencies = picked.map(([, ms]) => ms).sort((a, b) => a - b);
  const errors = picked.filter(([, , status]) => status !== 201).length;
  const answered = rows.filter(([due, ms]) => due + ms >= from && due + ms < to).length / ((to - from) / 1000);
  const fmt = (v) => (v === undefined ? 'NaN' : v.toFixed(1));
  console.log(`requests=${picked.length} errors=${errors} p50=${fmt(rank(latencies, 50))} p99=${fmt(rank(latencies, 99))} max=${fmt(latencies[latencies.length - 1])} answered=${answered.toFixed(1)}`);
}
