// Webhook fairness benchmark (make bench-webhooks, after the throughput run),
// driven by run.sh, which provides a fresh PostgreSQL database and RabbitMQ
// vhost. DECISIONS §10: one subscription's backlog or slow receiver must not
// delay another's deliveries. Three phases of BENCH_FAIRNESS_SECONDS each, the
// services on CPU 0 (split mode, default configuration), this process on CPU 1:
//   1. "B alone": subscription B (application B) receives BENCH_B_RATE new
//      events per second (`event.emitted` published on RabbitMQ) at a receiver
//      that answers 204 at once; one dispatcher;
//   2. "B with A": the same B load while subscription A (application A) has
//      BENCH_A_BACKLOG due deliveries to a receiver that never answers
//      (WEBHOOK_TIMEOUT 10 s), and application A calls replay-since through the
//      API at its API rate (60 per minute) the whole time; one dispatcher;
//   3. "fault": as 2 with two dispatchers, one of them killed with SIGKILL
//      halfway; then up to BENCH_DRAIN_SECONDS for B's deliveries to arrive.
// Reported: B's delay from due (the delivery row's created_at) to its arrival at
// the receiver, p50 (target < 200 ms) and p99 (target < 1 s) in phases 1 and 2;
// the highest number of connections open at once at A's receiver; the answers
// to A's replays; after the fault, whether every B delivery arrived (and how
// many twice) and whether every A delivery row is still there.
/* global fetch */
'use strict';
const { randomUUID } = require('node:crypto');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { encryptSecret, eventTimestamp, generateWebhookSecret, ROUTING_KEYS, SEAL_PURPOSES } = require('@cds/core');
const { createDataStore, pendingDelivery } = require('@cds/data');
const { connectAmqpBus } = require('@cds/messaging');
const { Client } = require('pg');
const kit = require('./bench-kit');

const SECONDS = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 60);
const B_RATE = Number(process.env.BENCH_B_RATE ?? 20);
const A_BACKLOG = Number(process.env.BENCH_A_BACKLOG ?? 10_000);
const DRAIN_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? 120);
/** After phases 1 and 2, time left for B's last deliveries to arrive. */
const GRACE_SECONDS = 10;
const WEBHOOK_TIMEOUT = '10s';
const TARGET_P50_MS = 200;
const TARGET_P99_MS = 1000;
/** Spacing of A's backlog rows' created_at: replay-since from 50 s back matches 500 of them. */
const BACKLOG_SPACING_MS = 100;
const REPLAY_WINDOW_MS = 50_000;
const DATABASE_URL = kit.required('BENCH_DATABASE_URL');
const AMQP_URL = kit.required('BENCH_AMQP_URL');
const { log } = kit;

const HEADER =
  '| date (UTC) | commit | load avg | fairness | s/phase | B events/s | B alone p50 ms | B alone p99 ms | B with A p50 ms | B with A p99 ms | B with A not arrived | A max connections | A attempts | replay-since 202 / 429 pending / 429 rate / 422 | target p50 < 200, p99 < 1000 | fault: B arrived / published | fault: B duplicates | fault: A rows expected / present | fault: A pending / abandoned / delivered | fault: A max connections | fault |\n' +
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|';

/**
 * Nearest-rank percentile of sorted delays. A delay known only as a lower bound
 * (never arrived) may belong anywhere above it, so the percentile is exact only
 * when no lower bound sorts at or below it; otherwise it is a lower bound itself.
 */
function percentile(delays, p) {
  if (delays.length === 0) return { ms: NaN, exact: true };
  const rank = Math.max(0, Math.ceil(p * delays.length) - 1);
  return { ms: delays[rank].ms, exact: delays.slice(0, rank + 1).every((d) => d.exact) };
}
const showMs = ({ ms, exact }) => (Number.isNaN(ms) ? 'n/a' : `${exact ? '' : '>'}${Math.round(ms)}`);

async function main() {
  const work = mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-fairness-'));
  const cleanups = [() => rmSync(work, { recursive: true, force: true })];
  const stopAll = [];
  try {
    const loadAvg = kit.loadAverage();
    const tlsFiles = kit.throwawayCa(work);
    /** B's receiver: every arrival's time, by event id. */
    const arrivals = new Map();
    const receiverB = await kit.startReceiver(tlsFiles, (eventId, at) => {
      const list = arrivals.get(eventId);
      if (list) list.push(at);
      else arrivals.set(eventId, [at]);
    });
    cleanups.unshift(receiverB.close);
    const receiverA = await kit.startSilentReceiver(tlsFiles);
    cleanups.unshift(receiverA.close);

    const store = await createDataStore({ url: DATABASE_URL });
    cleanups.unshift(() => store.close());
    await store.migrate();
    const pg = new Client({ connectionString: DATABASE_URL });
    await pg.connect();
    cleanups.unshift(() => pg.end());
    const secrets = kit.serviceSecrets();
    const key = Buffer.from(secrets.DATA_ENCRYPTION_KEY, 'base64');
    const serviceEnv = { DATABASE_URL, AMQP_URL, ...secrets };
    const dispatcherEnv = { ...serviceEnv, WEBHOOK_CA_BUNDLE: tlsFiles.caFile, WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8', WEBHOOK_TIMEOUT };

    // --- the API, CPU 0: the operator API makes the applications, A replays through it
    const apiPort = await kit.freePort();
    const api = await kit.startService('api', kit.API, { ...serviceEnv, API_PORT: String(apiPort) });
    stopAll.push(api);
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const operator = async (urlPath, body) => {
      const res = await fetch(`${apiUrl}${urlPath}`, {
        method: 'POST', headers: { Authorization: `Bearer ${secrets.OPERATOR_TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`POST ${urlPath} answered ${res.status}: ${await res.text()}`);
      return res.json();
    };

    const bus = await connectAmqpBus({ url: AMQP_URL, connectionName: 'bench-webhooks-fairness' });
    cleanups.unshift(() => bus.close());
    const sample = kit.domain();

    /** An application (operator API) with one subscription to domain.ready at `url`. */
    const application = async (slug, url, withCredential) => {
      await operator('/operator/v1/applications', { slug, name: `Bench ${slug}` });
      const credential = withCredential ? (await operator(`/operator/v1/applications/${slug}/credentials`, {})).secret : null;
      const { id } = (await pg.query('SELECT id FROM applications WHERE slug = $1 AND deleted_at IS NULL', [slug])).rows[0];
      const now = new Date();
      const sub = { id: randomUUID(), applicationId: id, url, events: ['domain.ready'], status: 'active', createdAt: now, updatedAt: now, revokedAt: null };
      // Sealed bound to its row, as the API seals it.
      const secretId = randomUUID();
      const secretSealed = encryptSecret(generateWebhookSecret(), key, { purpose: SEAL_PURPOSES.webhookSecret, id: secretId });
      await store.run((r) => r.webhookSubscriptions.insert(sub, { id: secretId, subscriptionId: sub.id, secretSealed, createdAt: now, expiresAt: null }));
      return { id, subscriptionId: sub.id, credential };
    };

    /** A's backlog: due deliveries of distinct events, created BACKLOG_SPACING_MS apart up to now. */
    const backlog = async (a) => {
      const end = Date.now();
      for (let start = 0; start < A_BACKLOG; start += 500) {
        const rows = [];
        for (let i = start; i < Math.min(A_BACKLOG, start + 500); i += 1) {
          const at = new Date(end - (A_BACKLOG - i) * BACKLOG_SPACING_MS);
          const eventId = randomUUID();
          const payload = JSON.stringify({ id: eventId, type: 'domain.ready', created_at: eventTimestamp(at), data: { domain: sample } });
          rows.push(pendingDelivery({ applicationId: a.id, subscriptionId: a.subscriptionId, eventId, eventType: 'domain.ready', payload, replayOf: null }, at));
        }
        await store.run((r) => r.webhookDeliveries.insertMany(rows));
      }
    };

    /** Application A's client: replay-since at its API rate (60 a minute) until stopped; the answers counted. */
    const replayLoop = (a) => {
      const tally = { calls: 0, accepted: 0, replayed: 0, pendingLimited: 0, rateLimited: 0, tooMany: 0, other: 0, lastOther: '', pending: null };
      let stopped = false;
      const since = new Date(Date.now() - REPLAY_WINDOW_MS).toISOString();
      const done = (async () => {
        let next = Date.now();
        while (!stopped) {
          tally.calls += 1;
          try {
            const res = await fetch(`${apiUrl}/v1/webhooks/${a.subscriptionId}/replay?since=${encodeURIComponent(since)}`, {
              method: 'POST', headers: { Authorization: `Bearer ${a.credential}` },
            });
            const body = await res.json().catch(() => null);
            const details = body?.error?.details ?? {};
            if (res.status === 202) {
              tally.accepted += 1;
              tally.replayed += body.replayed;
            } else if (res.status === 429 && 'pending' in details) {
              tally.pendingLimited += 1;
              tally.pending = details.pending;
            } else if (res.status === 429) tally.rateLimited += 1;
            else if (res.status === 422) tally.tooMany += 1;
            else {
              tally.other += 1;
              tally.lastOther = `${res.status} ${JSON.stringify(body)}`;
            }
          } catch (err) {
            tally.other += 1;
            tally.lastOther = err.message;
          }
          next += 1000; // 60 per minute: the application's default API rate
          await sleep(Math.max(0, next - Date.now()));
        }
      })();
      return { tally, stop: async () => { stopped = true; await done; } };
    };

    /** B's load: one event every 1/B_RATE s for SECONDS, on schedule; their ids. */
    const loadB = async (b, during) => {
      const ids = [];
      const publishes = [];
      const started = Date.now();
      for (let k = 0; ; k += 1) {
        const at = started + (k * 1000) / B_RATE;
        if (at >= started + SECONDS * 1000) break;
        await during(at - started);
        await sleep(Math.max(0, at - Date.now()));
        const eventId = randomUUID();
        ids.push(eventId);
        publishes.push(bus.publish(ROUTING_KEYS.eventEmitted, { event_id: eventId, type: 'domain.ready', application_id: b.id, created_at: eventTimestamp(new Date()), data: { domain: sample } }));
      }
      await Promise.all(publishes);
      return ids;
    };

    const allArrived = (ids) => ids.every((id) => arrivals.has(id));

    /** B's delays from due to first arrival, sorted; a missing arrival counts from due to `asOf`, as a lower bound. */
    const delaysOf = async (b, ids, asOf) => {
      const rows = (await pg.query('SELECT event_id, created_at FROM webhook_deliveries WHERE subscription_id = $1 AND replay_of IS NULL', [b.subscriptionId])).rows;
      const due = new Map(rows.map((row) => [row.event_id, row.created_at.getTime()]));
      const delays = ids.map((id) => {
        const first = arrivals.get(id)?.[0];
        const dueAt = due.get(id);
        if (first !== undefined && dueAt !== undefined) return { ms: first - dueAt, exact: true };
        return { ms: dueAt === undefined ? 0 : asOf - dueAt, exact: false };
      });
      delays.sort((x, y) => x.ms - y.ms);
      const arrived = ids.filter((id) => arrivals.has(id)).length;
      const duplicates = ids.reduce((n, id) => n + Math.max(0, (arrivals.get(id)?.length ?? 0) - 1), 0);
      return { delays, arrived, duplicates, rows: rows.length, p50: percentile(delays, 0.5), p99: percentile(delays, 0.99), max: percentile(delays, 1) };
    };

    const aRows = async (a) => {
      const rows = (await pg.query('SELECT state, COUNT(*)::int AS n, COUNT(*) FILTER (WHERE attempts > 0)::int AS tried FROM webhook_deliveries WHERE subscription_id = $1 GROUP BY state', [a.subscriptionId])).rows;
      const by = Object.fromEntries(rows.map((row) => [row.state, row.n]));
      return {
        present: rows.reduce((n, row) => n + row.n, 0), tried: rows.reduce((n, row) => n + row.tried, 0),
        pending: by.pending ?? 0, abandoned: by.abandoned ?? 0, delivered: by.delivered ?? 0,
      };
    };

    /** The subscription revoked as the API revokes it, so that the next phase starts clean. */
    const retire = async (sub) => {
      await pg.query("UPDATE webhook_subscriptions SET status = 'revoked', revoked_at = now(), updated_at = now() WHERE id = $1", [sub.subscriptionId]);
      await pg.query("UPDATE webhook_deliveries SET state = 'abandoned', next_attempt_at = NULL, last_error = 'bench phase over' WHERE subscription_id = $1 AND state = 'pending'", [sub.subscriptionId]);
    };

    const phase = async ({ n, name, withA, dispatchers: count, killAtS = null, waitS }) => {
      const b = await application(`fair-b-${n}`, `${receiverB.url}?phase=${n}`, false);
      const a = withA ? await application(`fair-a-${n}`, receiverA.url, true) : null;
      if (a) await backlog(a);
      receiverA.reset();
      const dispatchers = [];
      for (let i = 0; i < count; i += 1) {
        const d = await kit.startService(`dispatcher ${i + 1}`, kit.DISPATCHER, dispatcherEnv);
        dispatchers.push(d);
        stopAll.push(d);
      }
      log(`phase ${n}, ${name}: B ${B_RATE} events/s for ${SECONDS} s${a ? `, A ${A_BACKLOG} due deliveries to a silent receiver and replay-since once a second` : ''}, ${count} dispatcher(s)${killAtS !== null ? `, kill -9 of one at ${killAtS} s` : ''}`);
      const replays = a ? replayLoop(a) : null;
      let killedAt = null;
      const ids = await loadB(b, async (elapsedMs) => {
        if (killAtS !== null && killedAt === null && elapsedMs >= killAtS * 1000) {
          await dispatchers[0].kill();
          killedAt = Date.now();
          log(`phase ${n}: dispatcher 1 killed (SIGKILL) at ${(elapsedMs / 1000).toFixed(1)} s`);
        }
      });
      const loadEnd = Date.now();
      if (replays) await replays.stop();
      const arrivedAll = await kit.waitFor(() => allArrived(ids), waitS * 1000);
      const settledS = (Date.now() - loadEnd) / 1000;
      const result = {
        name, count, ids: ids.length, arrivedAll, settledS, killedAt,
        b: await delaysOf(b, ids, Date.now()),
        a: a ? { maxOpen: receiverA.counts.maxOpen, requests: receiverA.counts.requests, replays: replays.tally, rows: await aRows(a) } : null,
      };
      await Promise.all(dispatchers.map((d) => d.stop()));
      await retire(b);
      if (a) await retire(a);
      return result;
    };

    const alone = await phase({ n: 1, name: 'B alone', withA: false, dispatchers: 1, waitS: GRACE_SECONDS });
    const withA = await phase({ n: 2, name: 'B with A', withA: true, dispatchers: 1, waitS: GRACE_SECONDS });
    const fault = await phase({ n: 3, name: 'fault', withA: true, dispatchers: 2, killAtS: SECONDS / 2, waitS: DRAIN_SECONDS });

    // --- report -----------------------------------------------------------------
    const fairness = kit.fairnessBuilt() ? 'on' : 'absent';
    const date = kit.runDate();
    const commit = kit.gitCommit();
    const meets = withA.b.p50.exact && withA.b.p50.ms < TARGET_P50_MS && withA.b.p99.exact && withA.b.p99.ms < TARGET_P99_MS;
    const verdict = meets ? 'PASS' : 'FAIL';
    const aExpected = A_BACKLOG + fault.a.replays.replayed;
    const vanished = aExpected - fault.a.rows.present;
    const faultOk = fault.b.arrived === fault.ids && vanished === 0;
    const bLine = (r) =>
      `B due→arrival p50 ${showMs(r.b.p50)} ms, p99 ${showMs(r.b.p99)} ms, max ${showMs(r.b.max)} ms; ${r.b.arrived}/${r.ids} arrived, ${r.b.duplicates} duplicate arrival(s)`;
    const replayLine = ({ replays: t }) =>
      `replay-since: ${t.calls} calls: ${t.accepted} × 202 (${t.replayed} replayed), ${t.pendingLimited} × 429 pending limit${t.pending !== null ? ` (pending ${t.pending})` : ''}, ` +
      `${t.rateLimited} × 429 API rate, ${t.tooMany} × 422, ${t.other} other${t.other ? ` (last: ${t.lastOther})` : ''}`;
    console.log(`
Webhook fairness benchmark (${date}, ${os.cpus().length} CPUs, node ${process.version}, commit ${commit}, load average ${loadAvg} at start, fairness ${fairness})
  B: ${B_RATE} events/s for ${SECONDS} s per phase to a receiver answering 204 at once
  A: ${A_BACKLOG} due deliveries to a receiver that never answers (WEBHOOK_TIMEOUT ${WEBHOOK_TIMEOUT}); A calls replay-since once a second
  phase 1, B alone, 1 dispatcher:  ${bLine(alone)}
  phase 2, B with A, 1 dispatcher: ${bLine(withA)}
                                   A: highest connections open at once ${withA.a.maxOpen}, ${withA.a.requests} attempts received, ${withA.a.rows.tried} of its deliveries tried
                                   ${replayLine(withA.a)}
  target B with A: p50 < ${TARGET_P50_MS} ms and p99 < ${TARGET_P99_MS} ms   ${verdict}
  phase 3, fault, 2 dispatchers, kill -9 of one at ${SECONDS / 2} s:
                                   ${bLine(fault)} (${fault.arrivedAll ? `all within ${fault.settledS.toFixed(1)} s` : `not all within ${DRAIN_SECONDS} s`} after the load)
                                   A rows: ${aExpected} expected (${A_BACKLOG} + ${fault.a.replays.replayed} replays), ${fault.a.rows.present} present (pending ${fault.a.rows.pending}, abandoned ${fault.a.rows.abandoned}, delivered ${fault.a.rows.delivered}), ${vanished} vanished
                                   A: highest connections open at once ${fault.a.maxOpen}, ${fault.a.requests} attempts received
                                   ${replayLine(fault.a)}
  fault: every B delivery arrived and no A delivery vanished   ${faultOk ? 'PASS' : 'FAIL'}
`);
    if (process.env.BENCH_DOCS !== '0') {
      const t = withA.a.replays;
      kit.recordRow({
        marker: 'bench-webhooks:fairness',
        anchor: '### Fairness between subscriptions: results',
        header: HEADER,
        row:
          `| ${date} | ${commit} | ${loadAvg} | ${fairness} | ${SECONDS} | ${B_RATE} | ${showMs(alone.b.p50)} | ${showMs(alone.b.p99)} | **${showMs(withA.b.p50)}** | **${showMs(withA.b.p99)}** | ` +
          `${withA.ids - withA.b.arrived} | ${withA.a.maxOpen} | ${withA.a.requests} | ${t.accepted} / ${t.pendingLimited} / ${t.rateLimited} / ${t.tooMany} | ${verdict} | ` +
          `${fault.b.arrived} / ${fault.ids} | ${fault.b.duplicates} | ${aExpected} / ${fault.a.rows.present} | ${fault.a.rows.pending} / ${fault.a.rows.abandoned} / ${fault.a.rows.delivered} | ${fault.a.maxOpen} | ${faultOk ? 'PASS' : 'FAIL'} |`,
      });
      log(`recorded in ${kit.DOCS}`);
    }
  } finally {
    for (const service of stopAll.reverse()) await service.stop().catch(() => {});
    for (const cleanup of cleanups) await cleanup();
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(`[bench-webhooks] FAILED: ${err.stack ?? err.message}`);
  process.exit(1);
});
