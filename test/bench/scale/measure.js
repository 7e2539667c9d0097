// One measuring pass of the scale benchmark (make bench-scale): every operation
// BENCH_SCALE_SAMPLES times, one request at a time, for the measured
// application `scale-1` (1,000 domains) and, with --large, the deep pages of
// `scale-large`. Prints JSON: {ops: {name: {n, p50, p99, max, db_cpu_ms,
// app_cpu_ms}}, create: {...}}. API operations go through the real API;
// the checker's and the edge's statements through their repositories, as
// those services run them (the edge's load on a cache miss; the checker's
// lease then batch write).
'use strict';
/* global fetch, setTimeout */
const tls = require('node:tls');
const { readFileSync } = require('node:fs');
const { decryptSecret } = require('@cds/core');
const { createDataStore, RECENT_RUNS_KEPT } = require('@cds/data');
const { Client } = require('pg');
const { CERTIFICATE_KEY_LABEL } = require('./seed-sql');
const { series } = require('./sampling');

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run test/bench/scale/run.sh)`);
  return value;
};
const API = env('BENCH_API');
const API_LIMITED = env('BENCH_API_LIMITED');
const OPERATOR = env('BENCH_OPERATOR_TOKEN');
const APPS = JSON.parse(readFileSync(env('BENCH_SCALE_APPS_FILE'), 'utf8'));
const PIDS = env('BENCH_API_PIDS').split(',').map(Number);
const N = Number(process.env.BENCH_SCALE_SAMPLES ?? 200);
const KEY = Buffer.from(env('DATA_ENCRYPTION_KEY'), 'base64');
const phase = process.argv[2] ?? 'phase';
const large = process.argv.includes('--large');
const checkerOnly = process.argv.includes('--checker');

const log = (message) => console.error(`[bench-scale] ${phase}: ${message}`);

async function call(base, method, path, token, expect, body) {
  const res = await fetch(`${base}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${path}: HTTP ${res.status}, expected ${expect}: ${text.slice(0, 300)}`);
  return text;
}

/** Waits until every session has flushed its statistics (an idle one within 10 s), then reads them afresh. */
async function settledStatistics(pg) {
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await pg.query('SELECT pg_stat_clear_snapshot()');
}

/** Rows inserted and updated per table in this database. */
async function tupleCounts(pg) {
  await settledStatistics(pg);
  const { rows } = await pg.query('SELECT relname, n_tup_ins::bigint AS ins, n_tup_upd::bigint AS upd FROM pg_stat_user_tables');
  return new Map(rows.map((r) => [r.relname, { ins: Number(r.ins), upd: Number(r.upd) }]));
}

function tupleDelta(a, b, n) {
  const out = {};
  for (const [table, v] of b) {
    const w = a.get(table) ?? { ins: 0, upd: 0 };
    const ins = (v.ins - w.ins) / n;
    const upd = (v.upd - w.upd) / n;
    const round = (v) => Math.round(v * 100) / 100;
    if (round(ins) || round(upd)) out[table] = { inserted: round(ins), updated: round(upd) };
  }
  return out;
}

async function apiOps(pg, ops, created) {
  const m = APPS.measured;
  const opts = { pg, pids: PIDS };
  const pool = (await pg.query(`SELECT id, reference FROM domains WHERE application_id = $1 AND deleted_at IS NULL AND hostname LIKE 'shop-%' ORDER BY random()`, [m.id])).rows;
  const pick = (i) => pool[(i + pool.length) % pool.length];
  const tag = `${phase}-${Date.now().toString(36)}`;

  const wal0 = (await pg.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn;
  const tuples0 = await tupleCounts(pg);
  ops.create = await series(N, (i) => call(API, 'POST', '/v1/domains', m.key, 201, { hostname: `new-${i + 3}.${tag}.bench.example.com`, reference: 'ws-new', metadata: { plan: 'pro' } })
    .then((text) => { if (i >= 0) created.push(JSON.parse(text).id); }), opts);
  const wal1 = (await pg.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes', [wal0])).rows[0].bytes;
  const tuples1 = await tupleCounts(pg);
  // The creates' own rows (the warm-up's 3 included: they are in the counts too).
  const writes = { wal_bytes: Math.round(Number(wal1) / (N + 3)), rows: tupleDelta(tuples0, tuples1, N + 3) };
  log(`create p50 ${ops.create.p50} p99 ${ops.create.p99} ms`);

  ops.create_deployment_limit = await series(N, (i) => call(API_LIMITED, 'POST', '/v1/domains', m.key, 201, { hostname: `lim-${i + 3}.${tag}.bench.example.com`, reference: 'ws-new' })
    .then((text) => { if (i >= 0) created.push(JSON.parse(text).id); }), opts);
  log(`create with DEPLOYMENT_DOMAIN_LIMIT p50 ${ops.create_deployment_limit.p50} p99 ${ops.create_deployment_limit.p99} ms`);
  ops.get = await series(N, (i) => call(API, 'GET', `/v1/domains/${pick(i).id}`, m.key, 200), opts);
  ops.list_first = await series(N, () => call(API, 'GET', '/v1/domains', m.key, 200), opts);
  ops.list_offset_900 = await series(N, () => call(API, 'GET', '/v1/domains?offset=900', m.key, 200), opts);
  ops.list_reference = await series(N, (i) => call(API, 'GET', `/v1/domains?reference=${encodeURIComponent(pick(i).reference)}`, m.key, 200), opts);
  ops.list_status = await series(N, () => call(API, 'GET', '/v1/domains?status=attention_required', m.key, 200), opts);
  const appCounter = `recheck:app:${m.id}`;
  ops.recheck = await series(N, async (i) => {
    // 60 rechecks per application and hour: the bench resets the counter (its upsert is measured all the same).
    if ((i + 3) % 50 === 0) await pg.query('DELETE FROM rate_counters WHERE key = $1', [appCounter]);
    await call(API, 'POST', `/v1/domains/${pick(i + 300).id}/checks`, m.key, 202);
  }, opts);
  await pg.query('DELETE FROM rate_counters WHERE key = $1', [appCounter]);
  const toDelete = created.splice(0);
  ops.delete = await series(Math.min(N, toDelete.length - 3), (i) => call(API, 'DELETE', `/v1/domains/${toDelete[i + 3]}`, m.key, 202), opts);
  ops.operator_applications = await series(Math.ceil(N / 2), () => call(API, 'GET', '/operator/v1/applications', OPERATOR, 200), opts);
  ops.operator_traffic = await series(N, () => call(API, 'GET', `/operator/v1/applications/${m.slug}/traffic`, OPERATOR, 200), opts);
  log('API operations measured');
  return writes;
}

async function largeOps(pg, ops) {
  const l = APPS.large;
  const opts = { pg, pids: PIDS };
  const n = Math.ceil(N / 4);
  const live = Number((await pg.query('SELECT count(*) AS n FROM domains WHERE application_id = $1 AND deleted_at IS NULL', [l.id])).rows[0].n);
  const refs = (await pg.query('SELECT id, reference FROM domains WHERE application_id = $1 AND deleted_at IS NULL ORDER BY random() LIMIT 100', [l.id])).rows;
  ops.large_get = await series(n, (i) => call(API, 'GET', `/v1/domains/${refs[(i + 100) % 100].id}`, l.key, 200), opts);
  ops.large_list_first = await series(n, () => call(API, 'GET', '/v1/domains', l.key, 200), opts);
  ops.large_list_offset_900 = await series(n, () => call(API, 'GET', '/v1/domains?offset=900', l.key, 200), opts);
  const deep = Math.floor(live / 2);
  ops[`large_list_offset_${deep}`] = await series(n, () => call(API, 'GET', `/v1/domains?offset=${deep}`, l.key, 200), opts);
  ops[`large_list_offset_${live - 50}`] = await series(n, () => call(API, 'GET', `/v1/domains?offset=${live - 50}`, l.key, 200), opts);
  ops.large_list_reference = await series(n, (i) => call(API, 'GET', `/v1/domains?reference=${encodeURIComponent(refs[(i + 100) % 100].reference)}`, l.key, 200), opts);
  log('large application measured');
}

/**
 * WAL position, blocks read by the database, and `domains` row updates (all,
 * heap-only), settled (before the lease: with the statement that made the domains due).
 */
async function leaseCounters(pg) {
  await settledStatistics(pg);
  const { rows: [c] } = await pg.query(`SELECT pg_current_wal_lsn() AS lsn, (SELECT blks_read FROM pg_stat_database WHERE datname = current_database()) AS read,
    n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'domains'`);
  return { lsn: c.lsn, read: Number(c.read), upd: Number(c.upd), hot: Number(c.hot) };
}

async function statementOps(pg, ops) {
  const m = APPS.measured;
  const store = await createDataStore({ url: env('DATABASE_URL'), logger: { info: () => undefined, warn: () => undefined } });
  try {
    // The edge on a cache miss: the route of a hostname, its certificate (read, key unsealed, TLS context).
    const ready = (await pg.query(`SELECT hostname FROM domains WHERE application_id = $1 AND status = 'ready' AND deleted_at IS NULL ORDER BY random() LIMIT $2`, [m.id, N + 3])).rows;
    const hostname = (i) => ready[(i + 3) % ready.length].hostname;
    ops.edge_route = await series(N, async (i) => {
      if (!(await store.run((r) => r.edgeReads.route(hostname(i))))) throw new Error(`no route for ${hostname(i)}`);
    });
    ops.edge_route_unknown = await series(N, (i) => store.run((r) => r.edgeReads.route(`unknown-${i + 3}-${Date.now()}.example.org`)));
    ops.edge_certificate = await series(N, async (i) => {
      const row = await store.run((r) => r.certificates.find(hostname(i)));
      if (!row) throw new Error(`no certificate for ${hostname(i)}`);
      tls.createSecureContext({ cert: row.pemChain, key: decryptSecret(row.keySealed, KEY, CERTIFICATE_KEY_LABEL) });
    });
    log('edge loads measured');

    // The checker: lease 50 due domains, then write their batch (next check in an hour, lease ended).
    await pg.query(`UPDATE domains SET next_check_at = now() - random() * interval '10 minutes' WHERE application_id = $1 AND deleted_at IS NULL`, [m.id]);
    const rounds = Math.max(5, Math.min(15, Math.floor(N / 10))); // 750 leased at most: the measured application has 970 live
    const leased = [];
    const before = await leaseCounters(pg);
    ops.checker_lease = await series(rounds, async () => {
      const now = new Date();
      leased.push(await store.run((r) => r.checkRuns.claimDue(now, 50, `bench-scale-${phase}`, new Date(now.getTime() + 300_000))));
    }, { warmup: 0 });
    const after = await leaseCounters(pg);
    // Per lease: WAL bytes, blocks read from outside PostgreSQL's buffers, and the share of its row updates that were heap-only (no index entry).
    ops.checker_lease.wal_bytes = Math.round(Number((await pg.query('SELECT pg_wal_lsn_diff($1, $2) AS d', [after.lsn, before.lsn])).rows[0].d) / rounds);
    ops.checker_lease.blocks_read = Math.round((after.read - before.read) / rounds);
    ops.checker_lease.hot_share = after.upd > before.upd ? Math.round((100 * (after.hot - before.hot)) / (after.upd - before.upd)) / 100 : null;
    let round = 0;
    const writeLsn = (await pg.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn;
    ops.checker_batch_write = await series(rounds, async () => {
      const batch = leased[round++] ?? [];
      const now = new Date();
      const next = new Date(now.getTime() + 3_600_000);
      const records = batch.map((l) => ({
        domainId: l.domain.id, startedAt: now, status: l.domain.status, nextCheckAt: next, updatedAt: l.domain.updatedAt, counted: true, leaseUntil: null,
        checks: l.checks.map((c) => ({ ...c, observedAt: now })), certificate: null, messages: [],
        // The run's row replaces the oldest of the domain's ten (run-step.ts).
        run: {
          slot: l.checkCount % RECENT_RUNS_KEPT, startedAt: now, durationMs: 120, trigger: 'schedule', statusBefore: l.domain.status, statusAfter: l.domain.status,
          checks: l.checks.map((c) => ({ type: c.type, status: c.status, errorCode: c.errorCode, message: c.message })),
        },
      }));
      const written = await store.run((r) => r.checkRuns.record(records, `bench-scale-${phase}`));
      if (written.length !== records.length) throw new Error(`batch write kept ${written.length} of ${records.length}`);
    }, { warmup: 0 });
    ops.checker_batch_write.wal_bytes = Math.round(Number((await pg.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS d', [writeLsn])).rows[0].d) / rounds);
    ops.checker_lease.rows = leased.reduce((s, b) => s + b.length, 0) / rounds;
    log('checker statements measured');
  } finally {
    await store.close();
  }
}

async function main() {
  const pg = new Client({ connectionString: env('DATABASE_URL') });
  await pg.connect();
  const ops = {};
  try {
    // --checker: the checker's statements alone (a lease measured again on a kept database).
    const writes = checkerOnly ? null : await apiOps(pg, ops, []);
    if (large && !checkerOnly) await largeOps(pg, ops);
    await statementOps(pg, ops);
    console.log(JSON.stringify({ phase, samples: N, ops, create_writes: writes }));
  } finally {
    await pg.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
