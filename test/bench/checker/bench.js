// Benchmark of the checker (make bench-checker). One run, one fresh PostgreSQL
// database, one challtestsrv:
//   1. N pending_dns domains whose TXT and CNAME records are in challtestsrv,
//      the tables analyzed;
//   2. the reference: a bare loop of the same DNS queries (TXT at the
//      challenge name, CNAME of the hostname, CNAME of the edge target) with
//      node's resolver, at the checker's concurrency;
//   3. every domain made due and the internal CA created (not measured: a
//      deployment's domains fall due by the clock, and its CA is made once),
//      then one checker (in this process, in-process bus): time and CPU from
//      its start until every domain's ownership and routing checks pass.
// Prints, as JSON on the last line, the times and the CPU of each phase: this
// process, the DNS server and the bench database's PostgreSQL backends (the
// one that polls for the end is the bench's own and is reported apart), and
// the check runs the checker recorded for the N domains meanwhile.
// BENCH_ADMIN_URL: the PostgreSQL cluster (default the machine's, 127.0.0.1:5432);
// BENCH_DATABASE: an existing database of that cluster to add the N domains to,
// kept afterwards, instead of a fresh one dropped at the end (the scale bench's
// full database); there every other domain due within the next hour is put off
// by a day first, so that the checker's work is the N domains in both cases.
'use strict';
/* global setTimeout, fetch, URL */
const { spawn } = require('node:child_process');
const { randomBytes, randomUUID } = require('node:crypto');
const { Resolver } = require('node:dns/promises');
const { Client } = require('pg');
const { freePort } = require('../lib/free-port');
const { loadConfig } = require('@cds/config');
const { createDataStore } = require('@cds/data');
const { InProcessBus, silentLogger } = require('@cds/messaging');
const { InternalCa, startChecker } = require('@cds/checker');

const N = Number(process.env.BENCH_DOMAINS || 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 32);
const EDGE_TARGET = 'edge.example.net';
const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/test';
const EXISTING_DB = process.env.BENCH_DATABASE || null;

/** CPU time of this process (user + system, every thread) from a process.cpuUsage() difference. */
const cpuMs = (usage) => (usage.user + usage.system) / 1000;
/** CPU time (ms) another process has used so far, from /proc (clock ticks of 10 ms); 0 once it is gone. */
function procCpuMs(pid) {
  try {
    const fields = require('node:fs').readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
/** CPU time of the DNS server and of the PostgreSQL backends of the bench database, by pid. */
async function peerCpu(admin, dbName, dnsPid) {
  const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
  return { dns: procCpuMs(dnsPid), db: new Map(rows.map((r) => [r.pid, procCpuMs(r.pid)])) };
}
/**
 * Peer CPU used between two peerCpu() readings (backends that appeared meanwhile
 * count in full); the backends in `apart` (the bench's own polling) are summed
 * separately, not in database_cpu_ms.
 */
function peerCpuSince(before, after, apart = []) {
  let db = 0;
  let bench = 0;
  for (const [pid, ms] of after.db) {
    const used = ms - (before.db.get(pid) ?? 0);
    if (apart.includes(pid)) bench += used;
    else db += used;
  }
  return { dns_server_cpu_ms: after.dns - before.dns, database_cpu_ms: db, bench_database_cpu_ms: bench };
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/**
 * A full garbage collection before each measured phase (run.sh starts node with
 * --expose-gc): the setup's garbage (5,000 inserts, 10,000 record requests) is
 * not collected, at the cost of a major collection, inside a phase.
 */
const collectGarbage = () => global.gc?.();
const fqdn = (h) => `${h.toLowerCase()}.`;
const log = (m) => console.error(`[bench-checker] ${m}`);

/** A CPU profile of this process from now until stop(dir) (BENCH_PROFILE=<dir>): the checker phase alone. */
async function startProfile() {
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    async stop(dir) {
      const { profile } = await post('Profiler.stop');
      require('node:fs').mkdirSync(dir, { recursive: true });
      require('node:fs').writeFileSync(require('node:path').join(dir, `checker-${Date.now()}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}

async function pool(items, size, work) {
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => { while (next < items.length) await work(items[next++]); }));
}

async function main() {
  const dbName = EXISTING_DB ?? `bench_checker_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  if (!EXISTING_DB) await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).href;
  const [dnsPort, mgmtPort] = [await freePort(), await freePort()];
  const dns = spawn('/usr/bin/pebble-challtestsrv', ['-dns01', `127.0.0.1:${dnsPort}`, '-management', `127.0.0.1:${mgmtPort}`, '-http01', '', '-https01', '', '-tlsalpn01', '', '-defaultIPv6', ''], { stdio: 'ignore' });
  const post = async (path, body) => {
    const res = await fetch(`http://127.0.0.1:${mgmtPort}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`challtestsrv ${path}: ${res.status}`);
  };
  let store;
  let checker;
  try {
    for (let i = 0; ; i++) { try { await post('/clear-txt', { host: 'probe.test.' }); break; } catch (e) { if (i > 50) throw e; await sleep(100); } }
    const config = loadConfig({ mode: 'split', env: {
      DATABASE_URL: dbUrl, AMQP_URL: 'amqp://127.0.0.1', OPERATOR_TOKEN: randomBytes(24).toString('base64url'),
      // The scale bench's key (its database's sealed values), or a fresh one.
      DATA_ENCRYPTION_KEY: process.env.DATA_ENCRYPTION_KEY || randomBytes(32).toString('base64'), ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
      CERT_ISSUER: 'internal', EDGE_TARGET, DNS_SERVERS: `127.0.0.1:${dnsPort}`, CHECK_SCHEDULE_PENDING: '1h', CHECK_INTERVAL_LIVE: '1h', LOG_LEVEL: 'error',
    } });
    store = await createDataStore({ url: dbUrl });
    await store.migrate();

    log(`creating ${N} domains and their records`);
    const now = new Date();
    const application = { id: randomUUID(), slug: `bench-checker-${process.pid}`, name: 'bench', status: 'active', plan: 'free', contactEmail: null,
      limits: { live_domains: N, api_requests_per_minute: 60, proxied_requests_per_minute: 600, proxied_requests_per_second: 100, credentials: 1, webhook_subscriptions: 10, fair_use_bytes_per_month: 1e10 },
      createdAt: now, updatedAt: now, deletedAt: null };
    await store.run((r) => r.applications.insert(application));
    const domains = Array.from({ length: N }, (_, i) => ({
      id: randomUUID(), applicationId: application.id, hostname: `d${i}.bench-${process.pid}.com`, reference: `r${i}`, status: 'pending_dns',
      challengeToken: randomBytes(32).toString('hex'), metadata: {}, createdAt: now, updatedAt: now, deletedAt: null, nextCheckAt: null,
    }));
    await pool(domains, 8, (d) => store.run((r) => r.domains.insert(d, ['ownership', 'routing', 'certificate', 'origin'].map((type) => ({
      domainId: d.id, type, status: 'pending', errorCode: null, message: null, observedAt: null, nextCheckAt: null,
    })))));
    await pool(domains, 16, async (d) => {
      await post('/set-txt', { host: fqdn(`_custom-domain-challenge.${d.hostname}`), value: `custom-domain-verify=${d.challengeToken}` });
      await post('/set-cname', { host: fqdn(d.hostname), target: fqdn(EDGE_TARGET) });
    });

    // As pgbench does before a run: statistics of the loaded tables, as autovacuum
    // keeps them in a deployment. Without them the planner takes the 5,000 rows
    // just inserted for an empty table and sorts every due domain at each lease.
    let domainsInDb;
    {
      const setup = new Client({ connectionString: dbUrl });
      await setup.connect();
      await setup.query('ANALYZE domains, domain_checks');
      if (EXISTING_DB) {
        const { rowCount } = await setup.query(`UPDATE domains SET next_check_at = next_check_at + interval '1 day'
          WHERE next_check_at < now() + interval '1 hour' AND application_id <> $1`, [application.id]);
        log(`${rowCount} other domains due within the hour put off by a day`);
      }
      domainsInDb = (await setup.query('SELECT count(*)::int AS n FROM domains')).rows[0].n;
      log(`${domainsInDb} domains in ${dbName}`);
      await setup.end();
    }

    log('reference: the same DNS queries in a bare loop');
    const resolver = new Resolver({ timeout: 3000, tries: 2 });
    resolver.setServers([`127.0.0.1:${dnsPort}`]);
    collectGarbage();
    const refPeers = await peerCpu(admin, dbName, dns.pid);
    const refStart = process.hrtime.bigint();
    const refCpu = process.cpuUsage();
    let refOk = 0;
    await pool(domains, CONCURRENCY, async (d) => {
      const [txt, cname] = await Promise.all([resolver.resolveTxt(`_custom-domain-challenge.${d.hostname}`), resolver.resolveCname(d.hostname)]);
      await resolver.resolveCname(cname[0]).catch(() => []);
      if (txt.flat().join('') === `custom-domain-verify=${d.challengeToken}` && cname[0] === EDGE_TARGET) refOk += 1;
    });
    const referenceMs = Number(process.hrtime.bigint() - refStart) / 1e6;
    const referenceCpuMs = cpuMs(process.cpuUsage(refCpu));
    const referencePeers = peerCpuSince(refPeers, await peerCpu(admin, dbName, dns.pid));
    if (refOk !== N) throw new Error(`reference resolved ${refOk}/${N}`);

    log('checker: one instance');
    const pg = new Client({ connectionString: dbUrl });
    await pg.connect();
    // Making them due is the bench's work, not the checker's, and a deployment's
    // internal CA exists long before: both are done before measuring.
    await pg.query('UPDATE domains SET next_check_at = now() WHERE application_id = $1', [application.id]);
    await new InternalCa(store, config.dataEncryptionKey).prepare();
    collectGarbage();
    const profile = process.env.BENCH_PROFILE ? await startProfile() : null;
    const checkerPeers = await peerCpu(admin, dbName, dns.pid);
    const start = process.hrtime.bigint();
    const startCpu = process.cpuUsage();
    checker = await startChecker({ config, logger: silentLogger, store, bus: new InProcessBus(), pollIntervalMs: 100, concurrency: CONCURRENCY });
    for (;;) {
      // Only the bench's domains: among a million others a count of the whole table would be most of the database's work.
      const { rows } = await pg.query(`SELECT count(*)::int AS n FROM domain_checks c JOIN domains d ON d.id = c.domain_id
        WHERE d.application_id = $1 AND c.type IN ('ownership', 'routing') AND c.status = 'passing'`, [application.id]);
      if (rows[0].n === 2 * N) break;
      if (Number(process.hrtime.bigint() - start) / 1e9 > 600) throw new Error(`only ${rows[0].n / 2} of ${N} domains passed within 600 s`);
      await sleep(Number(process.env.BENCH_POLL_MS || 50));
    }
    const checkerMs = Number(process.hrtime.bigint() - start) / 1e6;
    const checkerCpuMs = cpuMs(process.cpuUsage(startCpu));
    const checkerPeersUsed = peerCpuSince(checkerPeers, await peerCpu(admin, dbName, dns.pid), [pg.processID]);
    const { rows: [issued] } = await pg.query('SELECT count(*)::int AS n FROM certificates c JOIN domains d ON d.id = c.domain_id WHERE d.application_id = $1', [application.id]);
    log(`certificates issued meanwhile (one at a time, spaced out, while checks run): ${issued.n}`);
    if (profile) await profile.stop(process.env.BENCH_PROFILE);
    const { rows: [runs] } = await pg.query('SELECT count(*)::int AS n FROM domain_check_runs r JOIN domains d ON d.id = r.domain_id WHERE d.application_id = $1', [application.id]);
    // How many updates found room beside the old row version (no index entries): the statistics lag a moment.
    await sleep(600);
    const { rows: hot } = await pg.query(`SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname IN ('domains', 'domain_checks') ORDER BY relname`);
    log(`updates (heap-only) since the load: ${hot.map((t) => `${t.relname} ${t.n_tup_upd} (${t.n_tup_hot_upd})`).join(', ')}`);
    await pg.end();
    const perDomainUs = (ms) => Math.round((ms / N) * 1000);
    console.log(JSON.stringify({
      domains: N, database_domains: domainsInDb, check_runs: runs.n,
      check_runs_per_second: Math.round((runs.n / checkerMs) * 1000), concurrency: CONCURRENCY, reference_ms: Math.round(referenceMs), checker_ms: Math.round(checkerMs), ratio: Number((referenceMs / checkerMs).toFixed(3)),
      reference_cpu_ms: Math.round(referenceCpuMs), checker_cpu_ms: Math.round(checkerCpuMs),
      reference_dns_server_cpu_ms: referencePeers.dns_server_cpu_ms, checker_dns_server_cpu_ms: checkerPeersUsed.dns_server_cpu_ms,
      checker_database_cpu_ms: checkerPeersUsed.database_cpu_ms, bench_poll_database_cpu_ms: checkerPeersUsed.bench_database_cpu_ms,
      // CPU per checked domain (µs) and the two ratios the targets are on, both within this run.
      reference_cpu_us_per_domain: perDomainUs(referenceCpuMs), checker_cpu_us_per_domain: perDomainUs(checkerCpuMs),
      dns_server_cpu_us_per_domain: perDomainUs(checkerPeersUsed.dns_server_cpu_ms), database_cpu_us_per_domain: perDomainUs(checkerPeersUsed.database_cpu_ms),
      checker_cpu_ratio: Number((checkerCpuMs / referenceCpuMs).toFixed(2)),
      database_cpu_ratio: Number((checkerPeersUsed.database_cpu_ms / checkerPeersUsed.dns_server_cpu_ms).toFixed(2)),
    }));
  } finally {
    if (checker) await checker.stop();
    if (store) await store.close();
    dns.kill('SIGTERM');
    if (!EXISTING_DB) await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

main().catch((err) => { console.error(`[bench-checker] FAILED: ${err.stack || err}`); process.exit(1); });
