// Open-loop load of the housekeeping benchmark (make bench-housekeeping):
// POST /v1/domains at a fixed arrival rate, each request a new hostname,
// whatever the answers' latency (request n is due at start + n / rate; a
// request sent late because the client was busy counts from when it was due,
// as wrk2 does). Appends one line per answered request to BENCH_RECORDS every
// second: `<due epoch ms> <latency ms> <status>` (status 0: no answer, or none
// within BENCH_REQUEST_TIMEOUT_MS). Runs until SIGTERM, then waits for the
// requests in flight (at most that timeout) and writes their lines too.
'use strict';
const http = require('node:http');
const { appendFileSync, writeFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');
const { clearInterval, clearTimeout, setInterval, setTimeout } = require('node:timers');
const { URL } = require('node:url');

const API = new URL(required('BENCH_API'));
// Credentials of several applications, comma-separated: request n uses the (n mod count)-th.
const TOKENS = required('BENCH_TOKENS').split(',');
const RECORDS = required('BENCH_RECORDS');
const RATE = Number(process.env.BENCH_RATE ?? 200);
const TAG = process.env.BENCH_TAG ?? 'h';
const TIMEOUT_MS = Number(process.env.BENCH_REQUEST_TIMEOUT_MS ?? 30_000);

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run test/bench/housekeeping/run.sh)`);
  return value;
}

// Enough sockets that requests never wait for one at this rate unless the service stalls.
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
const gapMs = 1000 / RATE;
const start = performance.now();
let records = [];
let sent = 0;
let inFlight = 0;
let stopping = false;
let timer = null;

function send(n) {
  const due = start + n * gapMs;
  const body = JSON.stringify({ hostname: `${TAG}-${n}.bench-customer.com`, reference: 'hk' });
  inFlight += 1;
  let done = false;
  const finish = (status) => {
    if (done) return;
    done = true;
    inFlight -= 1;
    records.push(`${Math.round(performance.timeOrigin + due)} ${(performance.now() - due).toFixed(2)} ${status}`);
  };
  const req = http.request(
    {
      host: API.hostname, port: API.port, path: '/v1/domains', method: 'POST', agent, timeout: TIMEOUT_MS,
      headers: { Authorization: `Bearer ${TOKENS[n % TOKENS.length]}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    },
    (res) => {
      res.resume();
      res.on('end', () => finish(res.statusCode));
      res.on('error', () => finish(0));
    },
  );
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', () => finish(0));
  req.end(body);
}

function flush() {
  if (records.length === 0) return;
  appendFileSync(RECORDS, records.join('\n') + '\n');
  records = [];
}

/** Sends every request due by now, then sleeps until the next one is due. */
function pump() {
  if (stopping) return;
  const now = performance.now();
  while (start + sent * gapMs <= now) send(sent++);
  timer = setTimeout(pump, Math.max(0, start + sent * gapMs - performance.now()));
}

let finished = 0;
const flusher = setInterval(() => {
  finished += records.length;
  flush();
}, 1000);

process.on('SIGTERM', () => {
  stopping = true;
  if (timer) clearTimeout(timer);
  clearInterval(flusher);
  const waitUntil = Date.now() + TIMEOUT_MS;
  const finish = () => {
    if (inFlight > 0 && Date.now() < waitUntil) return setTimeout(finish, 50);
    finished += records.length;
    flush();
    console.log(`[bench-housekeeping] load: ${sent} requests sent at ${RATE}/s, ${finished} answered or timed out, ${inFlight} left in flight`);
    agent.destroy();
    process.exit(0);
  };
  finish();
});

writeFileSync(RECORDS, '');
console.log(`[bench-housekeeping] load: POST /v1/domains at ${RATE}/s from ${Math.round(performance.timeOrigin + start)}`);
pump();
