// Webhook delivery benchmark (make bench-webhooks), driven by run.sh, which
// provides a fresh PostgreSQL database and RabbitMQ vhost. In one run:
//   1. one dispatcher process (split mode, services/webhook-dispatcher/dist/main.js,
//      CPU 0) delivers BENCH_EVENTS `event.emitted` events published on RabbitMQ to
//      one subscription on a local HTTPS receiver (this process, CPU 1); measured
//      from the first publish until every delivery is recorded `delivered`;
//   2. the reference: raw-client.js (CPU 0) sends the same number of the same
//      signed POSTs to the same receiver with a plain keep-alive client and the
//      dispatcher's concurrency; then once more through axios configured as the
//      dispatcher configures it, to show what the HTTP client alone costs.
// Prints both rates and their ratio, and records the run in docs/benchmarks.md.
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { randomBytes, randomUUID } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { encryptSecret, eventTimestamp, generateWebhookSecret } = require('@cds/core');
const { createDataStore } = require('@cds/data');
const { connectAmqpBus } = require('@cds/messaging');
const { Client } = require('pg');

const ROOT = path.resolve(__dirname, '../../..');
const DISPATCHER = path.join(ROOT, 'services/webhook-dispatcher/dist/main.js');
const DOCS = path.join(ROOT, 'docs/benchmarks.md');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const WARMUP = Number(process.env.BENCH_WARMUP_EVENTS ?? 300);
const CONCURRENCY = 32; // the dispatcher's default number of attempts in flight
const TARGET_RATIO = 0.5;
const DATABASE_URL = required('BENCH_DATABASE_URL');
const AMQP_URL = required('BENCH_AMQP_URL');

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run test/bench/webhooks/run.sh)`);
  return value;
}

const log = (message) => console.log(`[bench-webhooks] ${message}`);

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
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

/** The HTTPS receiver: answers 204 at once and counts. */
async function startReceiver(tlsFiles) {
  const counts = { total: 0, connections: 0 };
  const server = https.createServer({ key: tlsFiles.key, cert: tlsFiles.cert, keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      counts.total += 1;
      res.writeHead(204).end();
    });
  });
  server.on('secureConnection', () => (counts.connections += 1));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { counts, url: `https://127.0.0.1:${server.address().port}/hook`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
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
    metadata: { plan: 'pro' }, created_at: at, updated_at: at, deleted_at: null,
  };
}

function recordRun(row) {
  const begin = '<!-- bench-webhooks:runs -->';
  const end = '<!-- /bench-webhooks:runs -->';
  const header = '| date (UTC) | commit | CPUs | load avg | node | events | dispatcher deliveries/s | raw POSTs/s | ratio dispatcher/raw | axios-only POSTs/s | dispatcher CPU ms/delivery | raw CPU ms/POST | axios CPU ms/POST | PG commits/delivery |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|';
  let text = readFileSync(DOCS, 'utf8');
  if (!text.includes(begin)) {
    text = `${text.replace(/\n*$/, '\n')}\n## Webhook deliveries: \`make bench-webhooks\`\n\n${begin}\n${header}\n${end}\n`;
  }
  const [before, rest] = text.split(begin);
  const [table, after] = rest.split(end);
  const rows = table.split('\n').filter((line) => /^\| \d{4}-/.test(line));
  rows.push(row);
  writeFileSync(DOCS, `${before}${begin}\n${header}\n${rows.slice(-20).join('\n')}\n${end}${after}`);
}

async function main() {
  const work = mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
  const cleanups = [() => rmSync(work, { recursive: true, force: true })];
  try {
    const loadAvg = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const tlsFiles = throwawayCa(work);
    const receiver = await startReceiver(tlsFiles);
    cleanups.unshift(receiver.close);

    // --- database, application, subscription -------------------------------
    const store = await createDataStore({ url: DATABASE_URL });
    cleanups.unshift(() => store.close());
    await store.migrate();
    const key = randomBytes(32);
    const now = new Date();
    const app = {
      id: randomUUID(), slug: 'bench-webhooks', name: 'Bench', status: 'active', plan: 'free', contactEmail: null,
      limits: { live_domains: 25, api_requests_per_minute: 60, proxied_requests_per_minute: 600, proxied_requests_per_second: 100, credentials: 1, webhook_subscriptions: 10, fair_use_bytes_per_month: 1e10 },
      createdAt: now, updatedAt: now, deletedAt: null,
    };
    const secret = generateWebhookSecret();
    const sub = { id: randomUUID(), applicationId: app.id, url: receiver.url, events: ['domain.ready'], status: 'active', createdAt: now, updatedAt: now, revokedAt: null };
    await store.run((r) => r.applications.insert(app));
    await store.run((r) => r.webhookSubscriptions.insert(sub, { id: randomUUID(), subscriptionId: sub.id, secretSealed: encryptSecret(secret, key), createdAt: now, expiresAt: null }));
    // Plain SQL for the measurements: pending deliveries, and commits (pg_stat_database).
    const pg = new Client({ connectionString: DATABASE_URL });
    await pg.connect();
    cleanups.unshift(() => pg.end());
    const deliveredCount = async () => Number((await pg.query("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'delivered'")).rows[0].n);
    const commits = async () => Number((await pg.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit);

    // --- the dispatcher, CPU 0 --------------------------------------------------
    const metricsPort = await freePort();
    const profile = process.env.BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    const child = spawn('taskset', ['-c', '0', process.execPath, ...profile, DISPATCHER], {
      env: {
        PATH: process.env.PATH, DATABASE_URL, AMQP_URL, METRICS_PORT: String(metricsPort), BIND_ADDRESS: '127.0.0.1', LOG_LEVEL: 'warn',
        OPERATOR_TOKEN: randomBytes(24).toString('hex'), DATA_ENCRYPTION_KEY: key.toString('base64'),
        ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
        WEBHOOK_CA_BUNDLE: tlsFiles.caFile, WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    cleanups.unshift(async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    });
    await until('the dispatcher to be ready', async () => {
      if (child.exitCode !== null) throw new Error('the dispatcher exited at start-up');
      return (await httpStatus(`http://127.0.0.1:${metricsPort}/readyz`)) === 200;
    }, 30_000);

    const bus = await connectAmqpBus({ url: AMQP_URL, connectionName: 'bench-webhooks' });
    cleanups.unshift(() => bus.close());
    const body = { event_id: '', type: 'domain.ready', application_id: app.id, created_at: '', data: { domain: domain() } };
    const publish = async (n) => {
      for (let start = 0; start < n; start += 200) {
        const batch = Array.from({ length: Math.min(200, n - start) }, () => ({ ...body, event_id: randomUUID(), created_at: eventTimestamp(new Date()) }));
        await Promise.all(batch.map((payload) => bus.publish('event.emitted', payload)));
      }
    };

    // --- 1. the dispatcher ------------------------------------------------------
    log(`warm-up: ${WARMUP} events`);
    await publish(WARMUP);
    await until('the warm-up deliveries', async () => (await deliveredCount()) === WARMUP, 120_000);
    log(`measured: ${EVENTS} events through RabbitMQ, one dispatcher on CPU 0, receiver on CPU 1`);
    const cpu0 = cpuMs(child.pid);
    const commits0 = await commits();
    const started = process.hrtime.bigint();
    await publish(EVENTS);
    await until('every delivery recorded', async () => (await deliveredCount()) === WARMUP + EVENTS, 600_000);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuPerDelivery = (cpuMs(child.pid) - cpu0) / EVENTS;
    const commitsPerDelivery = ((await commits()) - commits0) / EVENTS;
    const dispatcherRate = EVENTS / seconds;
    log(`dispatcher: ${dispatcherRate.toFixed(1)} deliveries/s over ${receiver.counts.connections} TLS connection(s)`);
    if (receiver.counts.total !== WARMUP + EVENTS) log(`note: ${receiver.counts.total - WARMUP - EVENTS} duplicate deliveries`);

    // --- 2. the reference -------------------------------------------------------
    const bodyFile = path.join(work, 'body.json');
    writeFileSync(bodyFile, JSON.stringify({ id: randomUUID(), type: 'domain.ready', created_at: eventTimestamp(new Date()), data: { domain: body.data.domain } }));
    // Spawned, not run synchronously: the receiver answering them lives in this process.
    const reference = async (mode) =>
      JSON.parse(await output('taskset', ['-c', '0', process.execPath, path.join(__dirname, 'raw-client.js'), mode, receiver.url, String(EVENTS), String(CONCURRENCY), tlsFiles.caFile, secret, bodyFile]));
    log(`reference: ${EVENTS} signed POSTs from a plain keep-alive client (https.request, ${CONCURRENCY} at a time) on CPU 0`);
    const raw = await reference('https');
    log(`for comparison: the same POSTs through axios configured as the dispatcher configures it`);
    const viaAxios = await reference('axios');

    // --- report -----------------------------------------------------------------
    const ratio = dispatcherRate / raw.rate;
    const date = new Date().toISOString().slice(0, 16) + 'Z';
    let commit = 'unknown';
    try {
      commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
      try { execFileSync('git', ['diff', '--quiet', 'HEAD'], { cwd: ROOT }); } catch { commit += '+dirty'; }
    } catch { /* not a git checkout */ }
    console.log(`
Webhook delivery benchmark (${date}, ${os.cpus().length} CPUs, node ${process.version}, commit ${commit}, load average ${loadAvg} at start)
  dispatcher  ${dispatcherRate.toFixed(1)} deliveries/s  (${EVENTS} events in ${seconds.toFixed(2)} s; ${cpuPerDelivery.toFixed(2)} ms CPU and ${commitsPerDelivery.toFixed(1)} PostgreSQL commits per delivery)
  raw client  ${raw.rate.toFixed(1)} POSTs/s       (${raw.requests} in ${raw.seconds.toFixed(2)} s, keep-alive, ${CONCURRENCY} at a time; ${raw.cpuMsPerRequest.toFixed(2)} ms CPU per POST)
  axios only  ${viaAxios.rate.toFixed(1)} POSTs/s       (the same client, through axios; ${viaAxios.cpuMsPerRequest.toFixed(2)} ms CPU per POST)
  ratio dispatcher/raw  ${ratio.toFixed(2)}   (axios only/raw ${(viaAxios.rate / raw.rate).toFixed(2)}, dispatcher/axios only ${(dispatcherRate / viaAxios.rate).toFixed(2)})
  target ratio >= ${TARGET_RATIO}   ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}
`);
    if (process.env.BENCH_DOCS !== '0') {
      recordRun(
        `| ${date} | ${commit} | ${os.cpus().length} | ${loadAvg} | ${process.version} | ${EVENTS} | ${dispatcherRate.toFixed(1)} | ${raw.rate.toFixed(1)} | ` +
          `**${ratio.toFixed(2)}** | ${viaAxios.rate.toFixed(1)} | ${cpuPerDelivery.toFixed(2)} | ${raw.cpuMsPerRequest.toFixed(2)} | ${viaAxios.cpuMsPerRequest.toFixed(2)} | ${commitsPerDelivery.toFixed(1)} |`,
      );
      log('recorded in docs/benchmarks.md');
    }
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(`[bench-webhooks] FAILED: ${err.stack ?? err.message}`);
  process.exit(1);
});
