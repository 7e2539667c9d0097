// What the webhook benchmarks share (bench.js: throughput, fairness.js:
// fairness and the fault): the throwaway CA and HTTPS receivers, starting the
// services from their dist/ builds pinned to a CPU, polling, the commit, and
// the tables they record in docs/benchmarks-history.md (BENCH_DOCS_FILE: another
// file, relative to the repository's root as the shell scripts take it).
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { randomBytes, randomUUID } = require('node:crypto');
const { readdirSync, readFileSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { freePort } = require('../lib/free-port');

const ROOT = path.resolve(__dirname, '../../..');
const DOCS = path.resolve(ROOT, process.env.BENCH_DOCS_FILE || 'docs/benchmarks-history.md');
const DISPATCHER = path.join(ROOT, 'services/webhook-dispatcher/dist/main.js');
const API = path.join(ROOT, 'services/api/dist/main.js');

const log = (message) => console.log(`[bench-webhooks] ${message}`);

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run test/bench/webhooks/run.sh)`);
  return value;
}

function throwawayCa(dir) {
  const run = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...curve, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=bench CA');
  run('req', ...curve, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=bench receiver');
  writeFileSync(path.join(dir, 'leaf.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  run('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '1', '-extfile', 'leaf.ext');
  return { caFile: path.join(dir, 'ca.pem'), key: readFileSync(path.join(dir, 'leaf.key')), cert: readFileSync(path.join(dir, 'leaf.pem')) };
}

async function listen(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${server.address().port}/hook`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

/**
 * The HTTPS receiver that answers 204 at once and counts. `onArrival(eventId, atMs)`,
 * when given, is told of every request as its headers arrive.
 */
async function startReceiver(tlsFiles, onArrival) {
  const counts = { total: 0, connections: 0 };
  const server = https.createServer({ key: tlsFiles.key, cert: tlsFiles.cert, keepAliveTimeout: 60_000 }, (req, res) => {
    if (onArrival) onArrival(req.headers['x-custom-domain-event-id'], Date.now());
    req.resume();
    req.on('end', () => {
      counts.total += 1;
      res.writeHead(204).end();
    });
  });
  server.on('secureConnection', () => (counts.connections += 1));
  return { counts, ...(await listen(server)) };
}

/**
 * The HTTPS receiver that never answers: it counts requests and the connections
 * open at once (the highest since the last reset).
 */
async function startSilentReceiver(tlsFiles) {
  const counts = { requests: 0, open: 0, maxOpen: 0 };
  const server = https.createServer({ key: tlsFiles.key, cert: tlsFiles.cert, requestTimeout: 0, headersTimeout: 0 }, (req) => {
    counts.requests += 1;
    req.resume();
  });
  server.on('connection', (socket) => {
    counts.open += 1;
    counts.maxOpen = Math.max(counts.maxOpen, counts.open);
    socket.once('close', () => (counts.open -= 1));
  });
  return { counts, reset: () => Object.assign(counts, { requests: 0, maxOpen: counts.open }), ...(await listen(server)) };
}

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
  return (ticks * 1000) / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
}

function httpStatus(url) {
  return new Promise((resolve) => {
    http.get(url, (res) => { res.resume(); resolve(res.statusCode); }).on('error', () => resolve(0));
  });
}

/** Runs a command to its end; its stdout. */
function output(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`${args[2] ?? command} exited with ${code}`))));
  });
}

async function until(what, condition, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Polls `condition` until it holds or `timeoutMs` passed; whether it held. */
async function waitFor(condition, timeoutMs, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/** The secrets every service of one bench run shares. */
function serviceSecrets() {
  return {
    OPERATOR_TOKEN: randomBytes(24).toString('hex'),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
  };
}

/**
 * Starts a service's dist/main.js on `cpu` and waits for its /readyz.
 * `stop()` sends SIGTERM and waits; `kill()` is kill -9.
 */
async function startService(name, script, env, { cpu = '0', profileDir } = {}) {
  const metricsPort = await freePort();
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn('taskset', ['-c', cpu, process.execPath, ...nodeArgs, ...profile, script], {
    env: { PATH: process.env.PATH, METRICS_PORT: String(metricsPort), BIND_ADDRESS: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const service = {
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await until(`the ${name} to be ready`, async () => {
      if (child.exitCode !== null) throw new Error(`the ${name} exited at start-up`);
      return (await httpStatus(`http://127.0.0.1:${metricsPort}/readyz`)) === 200;
    }, 30_000);
  } catch (err) {
    await service.kill();
    throw err;
  }
  return service;
}

/** `git rev-parse --short HEAD`, with `+dirty` when tracked files differ from it. */
function gitCommit() {
  try {
    let commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    try { execFileSync('git', ['diff', '--quiet', 'HEAD'], { cwd: ROOT, stdio: 'ignore' }); } catch { commit += '+dirty'; }
    return commit;
  } catch {
    return 'unknown';
  }
}

/** Whether the build has the fairness between subscriptions (DECISIONS §10): its setting is in libs/config. */
function fairnessBuilt() {
  const dir = path.join(ROOT, 'libs/config/dist');
  return readdirSync(dir).some((file) => file.endsWith('.js') && readFileSync(path.join(dir, file), 'utf8').includes('WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION'));
}

const runDate = () => new Date().toISOString().slice(0, 16) + 'Z';
/** The 1-minute load average: other work on the machine skews the figures. */
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

/** A domain resource of realistic size, as `data.domain` carries it. */
function domain() {
  const id = randomUUID();
  const at = new Date().toISOString();
  return {
    id, hostname: `shop-${id.slice(0, 8)}.customer-bench.com`, reference: 'ws_bench', status: 'ready',
    dns_records: [
      { name: `_custom-domain-challenge.shop-${id.slice(0, 8)}.customer-bench.com`, type: 'TXT', value: `custom-domain-verify=${randomBytes(32).toString('hex')}`, purpose: 'ownership', help: 'Publish a TXT record with this name and value.' },
      { name: `shop-${id.slice(0, 8)}.customer-bench.com`, type: 'CNAME', value: 'edge.example.net', purpose: 'routing', help: 'Publish a CNAME record pointing at the edge.' },
    ],
    checks: ['ownership', 'routing', 'certificate', 'origin'].map((type) => ({ type, status: 'passing', error_code: null, message: null, observed_at: at, next_check_at: null })),
    metadata: { plan: 'pro' }, redirect_to: null, created_at: at, updated_at: at, deleted_at: null,
  };
}

/**
 * Appends `row` to the table between `<!-- <marker> -->` and `<!-- /<marker> -->`
 * in DOCS (every row kept: DOCS is the history of the readings), writing the current header.
 * When the markers are missing, the table is added after `anchor`.
 */
function recordRow({ marker, header, row, anchor }) {
  const begin = `<!-- ${marker} -->`;
  const end = `<!-- /${marker} -->`;
  let text = readFileSync(DOCS, 'utf8');
  if (!text.includes(begin)) {
    const at = text.indexOf(anchor);
    if (at < 0) throw new Error(`${DOCS} has neither ${begin} nor ${anchor}`);
    const cut = at + anchor.length;
    text = `${text.slice(0, cut)}\n\n${begin}\n${header}\n${end}${text.slice(cut)}`;
  }
  const [before, rest] = text.split(begin);
  const [table, after] = rest.split(end);
  const rows = table.split('\n').filter((line) => /^\| \d{4}-/.test(line));
  rows.push(row);
  writeFileSync(DOCS, `${before}${begin}\n${header}\n${rows.join('\n')}\n${end}${after}`);
}

module.exports = {
  ROOT, DOCS, DISPATCHER, API, log, required, freePort, throwawayCa, startReceiver, startSilentReceiver, cpuMs, output,
  until, waitFor, serviceSecrets, startService, gitCommit, fairnessBuilt, runDate, loadAverage, domain, recordRow,
};
