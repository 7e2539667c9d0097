// Edge cold start at full size (make bench-scale): an edge process started on
// the full database, BENCH_SCALE_EDGE_STARTS times (default 3), each time
// measuring from the process's spawn to
//   - its first HTTPS request served: a TLS handshake by SNI for a ready
//     domain of the measured application (its certificate read, its key
//     unsealed on that first handshake) and a 200 from an origin on loopback;
//   - /readyz answering 200;
//   - its log line "edge live hostnames loaded" (every live name read in pages);
// with the process's heap and RSS (its own metrics) at the first request and
// once the names are loaded. Certificates are loaded on demand: nothing of
// the million stored ones is read at start.
// The measured application's origin is pointed at the loopback origin for the
// run and put back after; the chosen domain's key is sealed again under its
// own hostname (the seed seals every row's copy of the one key under the first
// hostname's label). Prints JSON: {hostname, live_domains, certificates, starts: [...]}.
'use strict';
/* global fetch, setTimeout */
const http = require('node:http');
const https = require('node:https');
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { decryptSecret, encryptSecret, SEAL_PURPOSES } = require('@cds/core');
const { Client } = require('pg');
const { CERTIFICATE_KEY_LABEL } = require('./seed-sql');
const { freePort } = require('../lib/free-port');

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run test/bench/scale/run.sh)`);
  return value;
};
const ROOT = `${__dirname}/../../..`;
const APPS = JSON.parse(readFileSync(env('BENCH_SCALE_APPS_FILE'), 'utf8'));
const KEY = Buffer.from(env('DATA_ENCRYPTION_KEY'), 'base64');
const STARTS = Number(process.env.BENCH_SCALE_EDGE_STARTS ?? 3);
const LIMIT_MS = 120_000;
const log = (message) => console.error(`[bench-scale] edge start: ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One HTTPS GET by SNI; resolves with the status code, or null when the edge is not listening yet. */
function get(port, hostname) {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, servername: hostname, headers: { host: hostname }, path: '/', rejectUnauthorized: false, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(null));
  });
}

async function metric(port, name) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : null;
}
const mib = (bytes) => (bytes === null ? null : Math.round((bytes / 1048576) * 10) / 10);

async function oneStart(hostname, vhost) {
  const [port, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  let output = '';
  const began = performance.now();
  const edge = spawn('taskset', ['-c', '0', process.execPath, `${ROOT}/services/edge-proxy/dist/main.js`], {
    env: {
      ...process.env, AMQP_URL: `amqp://guest:guest@127.0.0.1:5672/${vhost}`, EDGE_HTTPS_PORT: String(port), EDGE_HTTP_PORT: String(httpPort),
      METRICS_PORT: String(metricsPort), BIND_ADDRESS: '127.0.0.1', LOG_LEVEL: 'info',
      ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'), OPERATOR_TOKEN: randomBytes(32).toString('hex'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => edge.on('exit', resolve));
  let namesLoaded = null;
  const onOutput = (chunk) => {
    output += chunk;
    if (namesLoaded === null && output.includes('edge live hostnames loaded')) namesLoaded = performance.now() - began;
  };
  edge.stdout.on('data', onOutput);
  edge.stderr.on('data', onOutput);
  const out = {};
  try {
    for (;;) {
      if (edge.exitCode !== null) throw new Error(`the edge exited: ${output.slice(-2000)}`);
      if (performance.now() - began > LIMIT_MS) throw new Error(`no request served within ${LIMIT_MS} ms: ${output.slice(-2000)}`);
      const status = await get(port, hostname);
      if (status === 200) break;
      if (status !== null) throw new Error(`first answer ${status}, expected 200: ${output.slice(-2000)}`);
      await sleep(10);
    }
    out.first_request_ms = Math.round(performance.now() - began);
    out.heap_at_first_request_mib = mib(await metric(metricsPort, 'nodejs_heap_size_used_bytes'));
    out.rss_at_first_request_mib = mib(await metric(metricsPort, 'process_resident_memory_bytes'));
    for (;;) {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => null);
      if (res?.status === 200) break;
      await sleep(10);
    }
    out.readyz_ms = Math.round(performance.now() - began);
    while (namesLoaded === null) {
      if (performance.now() - began > LIMIT_MS) throw new Error('live hostnames not loaded in time');
      await sleep(50);
    }
    out.names_loaded_ms = Math.round(namesLoaded);
    const line = output.split('\n').find((l) => l.includes('edge live hostnames loaded')) ?? '';
    out.names = Number(/"count":\s*(\d+)/.exec(line)?.[1] ?? NaN);
    out.heap_after_names_mib = mib(await metric(metricsPort, 'nodejs_heap_size_used_bytes'));
    out.rss_after_names_mib = mib(await metric(metricsPort, 'process_resident_memory_bytes'));
  } finally {
    edge.kill('SIGTERM');
    await exited;
  }
  return out;
}

async function main() {
  const vhost = env('BENCH_SCALE_VHOST');
  const pg = new Client({ connectionString: env('DATABASE_URL') });
  await pg.connect();
  const origin = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1');
  await new Promise((resolve) => origin.once('listening', resolve));
  const app = APPS.measured.id;
  const { rows: [d] } = await pg.query(`SELECT d.hostname, c.key_sealed FROM domains d JOIN certificates c ON c.hostname = d.hostname
    WHERE d.application_id = $1 AND d.status = 'ready' AND d.deleted_at IS NULL ORDER BY d.hostname DESC LIMIT 1`, [app]);
  const { rows: [o] } = await pg.query("SELECT id, url FROM origins WHERE application_id = $1 AND status = 'active'", [app]);
  const resealed = encryptSecret(decryptSecret(d.key_sealed, KEY, CERTIFICATE_KEY_LABEL), KEY, { purpose: SEAL_PURPOSES.certificateKey, id: d.hostname });
  await pg.query('UPDATE certificates SET key_sealed = $2 WHERE hostname = $1', [d.hostname, resealed]);
  await pg.query('UPDATE origins SET url = $2 WHERE id = $1', [o.id, `http://127.0.0.1:${origin.address().port}`]);
  const live = Number((await pg.query('SELECT COALESCE(SUM(live_domains), 0) AS n FROM applications')).rows[0].n);
  const certificates = Number((await pg.query("SELECT reltuples::bigint AS n FROM pg_class WHERE relname = 'certificates'")).rows[0].n);
  try {
    const starts = [];
    for (let i = 0; i < STARTS; i += 1) {
      starts.push(await oneStart(d.hostname, vhost));
      log(JSON.stringify(starts[i]));
    }
    console.log(JSON.stringify({ hostname: d.hostname, live_domains: live, certificates, starts }));
  } finally {
    await pg.query('UPDATE origins SET url = $2 WHERE id = $1', [o.id, o.url]);
    await pg.query('UPDATE certificates SET key_sealed = $2 WHERE hostname = $1', [d.hostname, d.key_sealed]);
    await pg.end();
    origin.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
