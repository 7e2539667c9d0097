// Webhook delivery throughput benchmark (make bench-webhooks), driven by
// run.sh, which provides a fresh PostgreSQL database and RabbitMQ vhost. In one run:
//   1. one dispatcher process (split mode, services/webhook-dispatcher/dist/main.js,
//      CPU 0, default configuration: fairness between subscriptions on) delivers
//      BENCH_EVENTS `event.emitted` events published on RabbitMQ, spread over
//      BENCH_SUBSCRIPTIONS subscriptions (one application each) of one local HTTPS
//      receiver (this process, CPU 1); measured from the first publish until
//      every delivery is recorded `delivered`;
//   2. the references: raw-client.js (CPU 0) sends the same number of the same
//      signed POSTs to the same receiver with a plain keep-alive client and the
//      dispatcher's concurrency; then once more through axios configured as the
//      dispatcher configures it ("axios alone").
// Target: dispatcher >= 0.6 x axios alone (the ratio to the plain client is
// shown for information). Records the run in docs/benchmarks-history.md.
'use strict';
const { randomUUID } = require('node:crypto');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { encryptSecret, eventTimestamp, generateWebhookSecret, ROUTING_KEYS, SEAL_PURPOSES } = require('@cds/core');
const { createDataStore } = require('@cds/data');
const { connectAmqpBus } = require('@cds/messaging');
const { Client } = require('pg');
const kit = require('./bench-kit');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const WARMUP = Number(process.env.BENCH_WARMUP_EVENTS ?? 300);
/** 8 x the per-subscription cap of 4 fills the dispatcher's 32 slots, the references' concurrency. */
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 8);
const CONCURRENCY = 32; // the dispatcher's default number of attempts in flight
const TARGET_RATIO_AXIOS = 0.6;
const DATABASE_URL = kit.required('BENCH_DATABASE_URL');
const AMQP_URL = kit.required('BENCH_AMQP_URL');
const { log } = kit;

const HEADER =
  '| date (UTC) | commit | CPUs | load avg | node | events | dispatcher deliveries/s | raw POSTs/s | ratio dispatcher/raw | axios-only POSTs/s | dispatcher CPU ms/delivery | raw CPU ms/POST | axios CPU ms/POST | PG commits/delivery | subscriptions | fairness | ratio dispatcher/axios-only | verdict: ≥ 0.6 × axios (≥ 0.5 in rows before 2026-11-28) |\n' +
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|';

async function main() {
  const work = mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
  const cleanups = [() => rmSync(work, { recursive: true, force: true })];
  try {
    const loadAvg = kit.loadAverage();
    const tlsFiles = kit.throwawayCa(work);
    const receiver = await kit.startReceiver(tlsFiles);
    cleanups.unshift(receiver.close);

    // --- database, applications, subscriptions --------------------------------
    const store = await createDataStore({ url: DATABASE_URL });
    cleanups.unshift(() => store.close());
    await store.migrate();
    const secrets = kit.serviceSecrets();
    const key = Buffer.from(secrets.DATA_ENCRYPTION_KEY, 'base64');
    const now = new Date();
    const secret = generateWebhookSecret();
    const apps = [];
    for (let i = 0; i < SUBSCRIPTIONS; i += 1) {
      const app = {
        id: randomUUID(), slug: `bench-webhooks-${i}`, name: 'Bench', status: 'active', plan: 'free', contactEmail: null,
        limits: { live_domains: 25, api_requests_per_minute: 60, proxied_requests_per_minute: 600, proxied_requests_per_second: 100, credentials: 1, webhook_subscriptions: 10, fair_use_bytes_per_month: 1e10 },
        createdAt: now, updatedAt: now, deletedAt: null,
      };
      const sub = { id: randomUUID(), applicationId: app.id, url: receiver.url, events: ['domain.ready'], status: 'active', createdAt: now, updatedAt: now, revokedAt: null };
      await store.run((r) => r.applications.insert(app));
      // Sealed bound to its row, as the API seals it.
      const secretId = randomUUID();
      const secretSealed = encryptSecret(secret, key, { purpose: SEAL_PURPOSES.webhookSecret, id: secretId });
      await store.run((r) => r.webhookSubscriptions.insert(sub, { id: secretId, subscriptionId: sub.id, secretSealed, createdAt: now, expiresAt: null }));
      apps.push(app);
    }
    const appIds = apps.map((app) => app.id);
    // Plain SQL for the measurements: delivered deliveries, and commits (pg_stat_database).
    const pg = new Client({ connectionString: DATABASE_URL });
    await pg.connect();
    cleanups.unshift(() => pg.end());
    const deliveredCount = async () =>
      Number((await pg.query("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'delivered' AND application_id = ANY($1::uuid[])", [appIds])).rows[0].n);
    const commits = async () => Number((await pg.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit);

    // --- the dispatcher, CPU 0 --------------------------------------------------
    const dispatcher = await kit.startService('dispatcher', kit.DISPATCHER, {
      DATABASE_URL, AMQP_URL, ...secrets, WEBHOOK_CA_BUNDLE: tlsFiles.caFile, WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
    }, { profileDir: process.env.BENCH_PROFILE });
    cleanups.unshift(dispatcher.stop);

    const bus = await connectAmqpBus({ url: AMQP_URL, connectionName: 'bench-webhooks' });
    cleanups.unshift(() => bus.close());
    const body = { event_id: '', type: 'domain.ready', application_id: '', created_at: '', data: { domain: kit.domain() } };
    let sent = 0;
    const publish = async (n) => {
      for (let start = 0; start < n; start += 200) {
        const batch = Array.from({ length: Math.min(200, n - start) }, () => {
          sent += 1;
          return { ...body, event_id: randomUUID(), application_id: appIds[sent % appIds.length], created_at: eventTimestamp(new Date()) };
        });
        await Promise.all(batch.map((payload) => bus.publish(ROUTING_KEYS.eventEmitted, payload)));
      }
    };

    // --- 1. the dispatcher ------------------------------------------------------
    log(`warm-up: ${WARMUP} events`);
    await publish(WARMUP);
    await kit.until('the warm-up deliveries', async () => (await deliveredCount()) === WARMUP, 120_000);
    log(`measured: ${EVENTS} events through RabbitMQ over ${SUBSCRIPTIONS} subscription(s), one dispatcher on CPU 0, receiver on CPU 1`);
    const cpu0 = kit.cpuMs(dispatcher.child.pid);
    const commits0 = await commits();
    const started = process.hrtime.bigint();
    await publish(EVENTS);
    await kit.until('every delivery recorded', async () => (await deliveredCount()) === WARMUP + EVENTS, 600_000);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuPerDelivery = (kit.cpuMs(dispatcher.child.pid) - cpu0) / EVENTS;
    const commitsPerDelivery = ((await commits()) - commits0) / EVENTS;
    const dispatcherRate = EVENTS / seconds;
    log(`dispatcher: ${dispatcherRate.toFixed(1)} deliveries/s over ${receiver.counts.connections} TLS connection(s)`);
    if (receiver.counts.total !== WARMUP + EVENTS) log(`note: ${receiver.counts.total - WARMUP - EVENTS} duplicate deliveries`);
    await dispatcher.stop();

    // --- 2. the references ------------------------------------------------------
    const bodyFile = path.join(work, 'body.json');
    writeFileSync(bodyFile, JSON.stringify({ id: randomUUID(), type: 'domain.ready', created_at: eventTimestamp(new Date()), data: { domain: body.data.domain } }));
    // Spawned, not run synchronously: the receiver answering them lives in this process.
    const reference = async (mode) =>
      JSON.parse(await kit.output('taskset', ['-c', '0', process.execPath, path.join(__dirname, 'raw-client.js'), mode, receiver.url, String(EVENTS), String(CONCURRENCY), tlsFiles.caFile, secret, bodyFile]));
    log(`reference: ${EVENTS} signed POSTs from a plain keep-alive client (https.request, ${CONCURRENCY} at a time) on CPU 0`);
    const raw = await reference('https');
    log(`reference: the same POSTs through axios configured as the dispatcher configures it (axios alone)`);
    const viaAxios = await reference('axios');

    // --- report -----------------------------------------------------------------
    const ratio = dispatcherRate / raw.rate;
    const ratioAxios = dispatcherRate / viaAxios.rate;
    const verdict = ratioAxios >= TARGET_RATIO_AXIOS ? 'PASS' : 'FAIL';
    // Node flags given to the services (BENCH_NODE_ARGS) go into the row beside fairness.
    const fairness = `${kit.fairnessBuilt() ? 'on' : 'absent'}${process.env.BENCH_NODE_ARGS ? `, node ${process.env.BENCH_NODE_ARGS}` : ''}`;
    const date = kit.runDate();
    const commit = kit.gitCommit();
    console.log(`
Webhook delivery benchmark (${date}, ${os.cpus().length} CPUs, node ${process.version}, commit ${commit}, load average ${loadAvg} at start)
  dispatcher  ${dispatcherRate.toFixed(1)} deliveries/s  (${EVENTS} events over ${SUBSCRIPTIONS} subscription(s) in ${seconds.toFixed(2)} s, fairness ${fairness}; ${cpuPerDelivery.toFixed(2)} ms CPU and ${commitsPerDelivery.toFixed(1)} PostgreSQL commits per delivery)
  axios alone ${viaAxios.rate.toFixed(1)} POSTs/s       (the same POSTs through axios, keep-alive, ${CONCURRENCY} at a time; ${viaAxios.cpuMsPerRequest.toFixed(2)} ms CPU per POST)
  raw client  ${raw.rate.toFixed(1)} POSTs/s       (${raw.requests} in ${raw.seconds.toFixed(2)} s through https.request; ${raw.cpuMsPerRequest.toFixed(2)} ms CPU per POST)
  ratio dispatcher/axios alone  ${ratioAxios.toFixed(2)}   target >= ${TARGET_RATIO_AXIOS}   ${verdict}
  for information: dispatcher/raw ${ratio.toFixed(2)}, axios alone/raw ${(viaAxios.rate / raw.rate).toFixed(2)}
`);
    if (process.env.BENCH_DOCS !== '0') {
      kit.recordRow({
        marker: 'bench-webhooks:runs',
        anchor: '## Webhook deliveries: `make bench-webhooks`',
        header: HEADER,
        row:
          `| ${date} | ${commit} | ${os.cpus().length} | ${loadAvg} | ${process.version} | ${EVENTS} | ${dispatcherRate.toFixed(1)} | ${raw.rate.toFixed(1)} | ` +
          `${ratio.toFixed(2)} | ${viaAxios.rate.toFixed(1)} | ${cpuPerDelivery.toFixed(2)} | ${raw.cpuMsPerRequest.toFixed(2)} | ${viaAxios.cpuMsPerRequest.toFixed(2)} | ` +
          `${commitsPerDelivery.toFixed(1)} | ${SUBSCRIPTIONS} | ${fairness} | **${ratioAxios.toFixed(2)}** | ${verdict} |`,
      });
      log(`recorded in ${kit.DOCS}`);
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
