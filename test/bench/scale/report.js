// The scale benchmark's report (make bench-scale) as Markdown, from the files
// run.sh left in BENCH_SCALE_WORK: measurements at both sizes, database sizes
// (the kept check runs' bytes per domain and per run among them), backups;
// seed and migrate times from the environment.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const os = require('node:os');

const work = process.env.BENCH_SCALE_WORK;
const read = (name) => JSON.parse(readFileSync(join(work, name), 'utf8'));
const small = read('small.json');
const full = read('full.json');
const sizes = { small: read('sizes-small.json'), full: read('sizes-full.json') };
const backups = { small: read('backup-small.json'), full: read('backup-full.json') };
const edgeStart = read('edge-start.json');
const checker = { small: read('checker-small.json'), full: read('checker-full.json') };
const TARGET = 2;
/** An edge started on the full database: first request served within 10 s, heap at most 256 MiB. */
const EDGE_START = { ms: 10_000, heapMib: 256 };
/** One checker's CPU per checked domain among the full database's domains ÷ in a fresh database, at most. */
const CHECKER_CPU_TARGET = 1.2;

// [key, label, targeted]
const OPERATIONS = [
  ['create', '`POST /v1/domains`', true],
  ['create_deployment_limit', '`POST /v1/domains`, `DEPLOYMENT_DOMAIN_LIMIT` set', true],
  ['get', '`GET /v1/domains/{id}`', true],
  ['list_first', '`GET /v1/domains` first page (50)', true],
  ['list_offset_900', '`GET /v1/domains?offset=900`', true],
  ['list_reference', '`GET /v1/domains?reference=…`', true],
  ['list_status', '`GET /v1/domains?status=attention_required`', true],
  ['recheck', '`POST /v1/domains/{id}/checks`', true],
  ['delete', '`DELETE /v1/domains/{id}`', true],
  ['operator_applications', '`GET /operator/v1/applications` (1,001 applications)', true],
  ['operator_traffic', '`GET /operator/v1/applications/{slug}/traffic`', true],
  ['edge_route', 'edge: cold route load', true],
  ['edge_route_unknown', 'edge: cold route load of an unknown name', false],
  ['edge_certificate', 'edge: cold certificate load (read, unseal, TLS context)', false],
  ['checker_lease', 'checker: lease of 50 due domains', true],
  ['checker_batch_write', 'checker: batch write of 50 domains', false],
];

const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const n = (v) => Number(v).toLocaleString('en-US');
const kib = (bytes) => (bytes / 1024).toFixed(2);
const mib = (bytes) => (bytes / 1048576).toFixed(0);

const failures = [];
const rows = OPERATIONS.map(([key, label, targeted]) => {
  const a = small.ops[key];
  const b = full.ops[key];
  const ratio = b.p99 / a.p99;
  const verdict = targeted ? (ratio <= TARGET ? 'PASS' : 'FAIL') : 'reported';
  if (verdict === 'FAIL') failures.push(label);
  const cpu = (o) => (o.db_cpu_ms === undefined ? '–' : `${fmt(o.db_cpu_ms)} / ${fmt(o.app_cpu_ms)}`);
  return `| ${label} | ${fmt(a.p50)} / ${fmt(a.p99)} | ${fmt(b.p50)} / ${fmt(b.p99)} | **${ratio.toFixed(2)}** | ${targeted ? `≤ ${TARGET}×` : '–'} | ${verdict} | ${cpu(a)} | ${cpu(b)} |`;
});

const ready = Number(sizes.full.ready);
/** The tables of a domain's own state, without its kept runs and history. */
const DOMAIN_ITSELF = ['domains', 'domain_checks', 'certificates'];
const DOMAIN_BYTES_TARGET = 3500;
const itself = Math.round(DOMAIN_ITSELF.reduce((sum, t) => sum + (sizes.full.tables[t]?.bytes ?? 0), 0) / ready);
if (itself > DOMAIN_BYTES_TARGET) failures.push('bytes of the domain itself');
const perReady = sizes.full.database / ready;
// The kept check runs are listed whatever their size (DECISIONS §15: the bench reports them).
const RUNS_TABLE = 'domain_check_runs';
const tables = Object.entries(sizes.full.tables).sort((x, y) => y[1].bytes - x[1].bytes).filter(([t, v]) => v.bytes >= 1048576 || t === RUNS_TABLE);
const runs = sizes.full.runs;
const runsLine = `Kept check runs (\`${RUNS_TABLE}\`, the last ${n(Math.round(runs.rows / runs.domains))} runs of each domain): **${n(Math.round(runs.bytes / runs.domains))} bytes per domain (table + indexes), `
  + `${n(Math.round(runs.bytes / runs.rows))} bytes per run**; ${n(runs.rows)} runs of ${n(runs.domains)} domains, ${mib(runs.bytes)} MiB of which indexes ${mib(runs.indexes)} MiB; `
  + `a row averages ${Math.round(runs.row_bytes)} bytes, its \`checks\` text ${Math.round(runs.checks_bytes)} (${(100 * runs.all_passing / runs.rows).toFixed(1)}% of the runs saw every check pass: `
  + `${Math.round(runs.all_passing_checks_bytes)} bytes of \`checks\` each); ${n(Math.round(runs.bytes / ready))} of the bytes per ready domain above.`;
const deep = Object.entries(full.ops).filter(([key]) => key.startsWith('large_'));
const writes = full.create_writes.rows;
const rowsPerCreate = Object.entries(writes).filter(([, w]) => w.inserted || w.updated)
  .map(([t, w]) => [t, w.inserted ? `+${w.inserted}` : '', w.updated ? `~${w.updated}` : ''].filter(Boolean).join(' ')).join(', ');

const startRows = edgeStart.starts.map((s, i) => {
  const heap = Math.max(s.heap_at_first_request_mib, s.heap_after_names_mib);
  const verdict = s.first_request_ms <= EDGE_START.ms && heap <= EDGE_START.heapMib ? 'PASS' : 'FAIL';
  if (verdict === 'FAIL') failures.push(`edge start ${i + 1}`);
  return `| ${i + 1} | **${n(s.first_request_ms)}** | ${n(s.readyz_ms)} | ${n(s.names_loaded_ms)} (${n(s.names)} names) | **${s.heap_at_first_request_mib}** / ${s.rss_at_first_request_mib} | **${s.heap_after_names_mib}** / ${s.rss_after_names_mib} | ${verdict} |`;
});

const checkerRatio = checker.full.checker_cpu_us_per_domain / checker.small.checker_cpu_us_per_domain;
const checkerVerdict = checkerRatio <= CHECKER_CPU_TARGET ? 'PASS' : 'FAIL';
if (checkerVerdict === 'FAIL') failures.push('checker CPU per domain');
const checkerRow = (label, c) => `| ${label} (${n(c.database_domains)} domains) | ${n(c.check_runs)} in ${n(c.checker_ms)} ms: **${n(c.check_runs_per_second)}** | `
  + `**${n(c.checker_cpu_us_per_domain)}** | ${n(c.reference_cpu_us_per_domain)} | ${n(c.database_cpu_us_per_domain)} / ${n(c.dns_server_cpu_us_per_domain)} |`;

const out = `### Run ${new Date().toISOString().slice(0, 16)}Z

${os.cpus().length} CPUs, node ${process.version}, commit ${process.env.BENCH_SCALE_COMMIT}; load average ${process.env.BENCH_SCALE_LOAD}
(before the small measurement / before the full one / after it). PostgreSQL: a cluster of the bench's own,
${process.env.BENCH_SCALE_PG ?? 'settings not recorded'}. ${small.samples} requests per
operation (the large application's ${Math.ceil(small.samples / 4)}, the checker's ${full.ops.checker_lease.n} rounds), one at a time.

Database: ${n(sizes.small.domains)} domains when small (the creates' deleted ones included), ${n(sizes.full.domains)} when full (${n(ready)} ready);
full seed ${process.env.BENCH_SCALE_SEED_S} s with VACUUM ANALYZE; \`cdctl migrate\` on the full database
${process.env.BENCH_SCALE_MIGRATE_NOOP_S} s with nothing to apply, ${process.env.BENCH_SCALE_MIGRATE_S} s applying ${process.env.BENCH_SCALE_LAST_MIGRATION}; backup (\`GET /operator/v1/backup\`) ${Number(backups.small.seconds).toFixed(1)} s / ${mib(backups.small.bytes)} MiB small,
${Number(backups.full.seconds).toFixed(1)} s / ${mib(backups.full.bytes)} MiB full.

| operation | p50 / p99 ms at 1,000 | p50 / p99 ms at full | ratio p99 | target | result | DB / API CPU ms per request at 1,000 | at full |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Edge cold start on the full database (${n(edgeStart.live_domains)} live domains, ${n(edgeStart.certificates)} stored certificates), \`edge-start.js\`: ms from
the process's spawn to its first HTTPS request served (\`${edgeStart.hostname}\`: handshake by SNI, 200 from a loopback origin), to \`/readyz\`, to every
live name loaded; heap used / RSS in MiB. Targets: first request ≤ ${n(EDGE_START.ms)} ms, heap ≤ ${EDGE_START.heapMib} MiB.

| start | first request ms | /readyz ms | names loaded ms | heap / RSS at first request | heap / RSS after the names | result |
|---|---|---|---|---|---|---|
${startRows.join('\n')}

The checker's lease of 50 due domains, per lease: ${n(small.ops.checker_lease.wal_bytes)} → ${n(full.ops.checker_lease.wal_bytes)} bytes of WAL,
${n(small.ops.checker_lease.blocks_read)} → ${n(full.ops.checker_lease.blocks_read)} blocks read from outside PostgreSQL's buffers, ${small.ops.checker_lease.hot_share} → ${full.ops.checker_lease.hot_share}
of its row updates heap-only; the batch write that follows it ${n(small.ops.checker_batch_write.wal_bytes)} → ${n(full.ops.checker_batch_write.wal_bytes)} bytes of WAL
(at 1,000 → at full size).

One checker process (\`test/bench/checker/bench.js\`, concurrency ${checker.full.concurrency}, internal CA) checking ${n(checker.full.domains)} new pending domains
whose records are in challtestsrv, until all pass ownership and routing: in a fresh database of this cluster, then added to the full database
(every other domain due within the hour put off). CPU per checked domain, full ÷ fresh: **${checkerRatio.toFixed(2)}** (target ≤ ${CHECKER_CPU_TARGET}: ${checkerVerdict}).

| database | check runs, per second | checker CPU µs per domain | bare resolver loop µs per domain | PostgreSQL / DNS server µs per domain |
|---|---|---|---|---|
${checkerRow('fresh', checker.small)}
${checkerRow('full', checker.full)}

Targets: ${failures.length === 0 ? 'all PASS' : `FAIL: ${failures.join('; ')}`}.

Bytes per ready domain, indexes and TOAST included: ${kib(perReady)} KiB (database ${mib(sizes.full.database)} MiB ÷ ${n(ready)} ready domains);
the domain itself (its row, check rows and certificate: ${DOMAIN_ITSELF.join(', ')}): **${n(itself)} bytes** (target ≤ ${n(DOMAIN_BYTES_TARGET)}: ${itself <= DOMAIN_BYTES_TARGET ? 'PASS' : 'FAIL'}).
By table (MiB, of which indexes; bytes per ready domain):

| table | rows | MiB | indexes MiB | bytes per ready domain |
|---|---|---|---|---|
${tables.map(([t, v]) => `| ${t} | ${n(v.rows)} | ${mib(v.bytes)} | ${mib(v.indexes)} | ${n(Math.round(v.bytes / ready))} |`).join('\n')}

${runsLine}

A create (\`POST /v1/domains\`, no deployment limit) writes per request: ${rowsPerCreate} (+ inserted, ~ updated rows);
${n(full.create_writes.wal_bytes)} bytes of WAL at full size (${n(small.create_writes.wal_bytes)} at 1,000; the bench's cluster's WAL, its autovacuum's and the API's other writes included).

The large application (${n(Number(process.env.BENCH_SCALE_LARGE_DOMAINS ?? 100000))} domains, 97% live), reported, not targeted:

| operation | p50 / p99 ms | DB / API CPU ms per request |
|---|---|---|
${deep.map(([key, o]) => `| ${key.replace('large_', '').replaceAll('_', ' ')} | ${fmt(o.p50)} / ${fmt(o.p99)} | ${fmt(o.db_cpu_ms)} / ${fmt(o.app_cpu_ms)} |`).join('\n')}
`;
process.stdout.write(out);
