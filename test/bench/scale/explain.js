// EXPLAIN (ANALYZE, BUFFERS, WAL) of the statements behind the scale benchmark's
// operations (make bench-scale), on the database as it is: the SQL the
// repositories send, for the measured application `scale-1` and the large one.
// Writes run in a transaction that is rolled back. Prints one block per statement.
'use strict';
const { readFileSync } = require('node:fs');
const { Client } = require('pg');

const APPS = JSON.parse(readFileSync(process.env.BENCH_SCALE_APPS_FILE, 'utf8'));
const DOMAIN = 'id, application_id, hostname, reference, status, challenge_token, metadata, created_at, updated_at, deleted_at, next_check_at';
const page = (extra, offset) => `SELECT ${DOMAIN} FROM domains WHERE application_id = $1${extra} AND deleted_at IS NULL ORDER BY created_at ASC, id ASC LIMIT 50 OFFSET ${offset}`;
/** A deep live page since migration 1760000000900: ids from the partial index, then the rows. */
const livePage = (offset) => `SELECT ${DOMAIN} FROM domains d WHERE d.id IN (SELECT p.id FROM domains p WHERE p.application_id = $1 AND p.deleted_at IS NULL
  ORDER BY p.created_at, p.id LIMIT 50 OFFSET ${offset}) ORDER BY d.created_at ASC, d.id ASC`;
/** Plans as they were before migration 1760000000900 (its index dropped in the rolled-back transaction). */
const BEFORE = 'DROP INDEX ix_domains_application_live';

async function main() {
  const pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
  try {
    const m = APPS.measured.id;
    const l = APPS.large.id;
    const one = async (sql, params) => (await pg.query(sql, params)).rows[0];
    const d = await one(`SELECT id, reference, hostname FROM domains WHERE application_id = $1 AND status = 'ready' AND deleted_at IS NULL ORDER BY random() LIMIT 1`, [m]);
    const liveLarge = Math.max(50, Number((await one('SELECT live_domains AS n FROM applications WHERE id = $1', [l])).n));
    const statements = [
      ['GET /v1/domains/{id}: the domain', `SELECT ${DOMAIN} FROM domains WHERE application_id = $1 AND id = $2 AND deleted_at IS NULL LIMIT 1`, [m, d.id]],
      ['GET /v1/domains/{id}: its checks', 'SELECT * FROM domain_checks WHERE domain_id IN ($1)', [d.id]],
      ['GET /v1/domains: first page', page('', 0), [m]],
      ['GET /v1/domains: first page, through the index first (not used: below offset 100)', livePage(0), [m]],
      ['GET /v1/domains?offset=900, before', page('', 900), [m], BEFORE],
      ['GET /v1/domains?offset=900, after', livePage(900), [m]],
      ['GET /v1/domains?reference=…', page(' AND reference = $2', 0), [m, d.reference]],
      ['GET /v1/domains?status=attention_required', page(' AND status = $2', 0), [m, 'attention_required']],
      [`GET /v1/domains?offset=${liveLarge - 50} (large application), before`, page('', liveLarge - 50), [l], BEFORE],
      [`GET /v1/domains?offset=${liveLarge - 50} (large application), after`, livePage(liveLarge - 50), [l]],
      ['POST /v1/domains with DEPLOYMENT_DOMAIN_LIMIT: count of live domains, before', 'SELECT COUNT(1) AS "cnt" FROM domains WHERE deleted_at IS NULL', []],
      ['POST /v1/domains with DEPLOYMENT_DOMAIN_LIMIT: count of live domains, after', 'SELECT COALESCE(SUM(live_domains), 0) AS live FROM applications', []],
      ['edge: route of a hostname', `SELECT d.id AS domain_id, d.hostname, d.reference, d.status, a.id AS application_id, a.slug, a.status AS application_status, a.limits,
        (SELECT o.url FROM origins o WHERE o.application_id = a.id AND o.status = 'active' LIMIT 1) AS origin_url
        FROM domains d JOIN applications a ON a.id = d.application_id
        WHERE d.hostname = $1 AND d.deleted_at IS NULL AND d.status <> 'deleting' AND a.deleted_at IS NULL`, [d.hostname]],
      ['edge: certificate of a hostname', 'SELECT * FROM certificates WHERE hostname = $1 LIMIT 1', [d.hostname]],
      ['checker: lease of 50 due domains (rolled back)', `UPDATE domains SET leased_by = 'explain', leased_until = now() + interval '5 minutes'
        WHERE id IN (SELECT id FROM domains WHERE deleted_at IS NULL AND next_check_at <= now() AND (leased_until IS NULL OR leased_until < now())
                     ORDER BY next_check_at LIMIT 50 FOR UPDATE SKIP LOCKED) RETURNING id`, []],
      ['operator: application list', 'SELECT * FROM applications WHERE deleted_at IS NULL ORDER BY created_at ASC, id ASC', []],
      ['operator: traffic of 30 days', "SELECT * FROM traffic_daily WHERE application_id = $1 AND day BETWEEN to_char(now() - interval '29 days', 'YYYY-MM-DD') AND to_char(now(), 'YYYY-MM-DD') ORDER BY day", [m]],
    ];
    for (const [name, sql, params, setup] of statements) {
      await pg.query('BEGIN');
      try {
        if (setup) await pg.query(setup);
        const { rows } = await pg.query(`EXPLAIN (ANALYZE, BUFFERS, WAL) ${sql}`, params);
        console.log(`### ${name}\n\n\`\`\`\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n\`\`\`\n`);
      } finally {
        await pg.query('ROLLBACK');
      }
    }
  } finally {
    await pg.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
