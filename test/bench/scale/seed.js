// Seeds the scale benchmark's database (make bench-scale). Commands:
//   apps    BENCH_SCALE_APPS applications of 1,000 domains (the first one, `scale-1`,
//           is measured) and one large one (`scale-large`), each with a credential,
//           through the operator API; their active origin, webhook subscription and
//           30 days of traffic by SQL. Prints {"measured":…, "large":…} with slug, id and key.
//   small   the measured application's 1,000 domains.
//   full    every application's domains, interleaved by creation time (the measured
//           application's again, the large one's BENCH_SCALE_LARGE_DOMAINS).
// Domains come with their four checks, their last 10 check runs (the ring of
// domain_check_runs, DECISIONS §15), a certificate when ready, and
// BENCH_SCALE_HISTORY_EVENTS outbox rows each (2 in 10 are events, each with a
// delivery and its attempt), by generate_series in PostgreSQL (seed-sql.js).
// Then VACUUM ANALYZE: the cluster's autovacuum would get to the new rows in its own
// time; the measurement starts from vacuumed, analyzed tables every run.
'use strict';
/* global fetch */
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { randomUUID } = require('node:crypto');
const { encryptSecret, generateWebhookSecret, SEAL_PURPOSES } = require('@cds/core');
const { Client } = require('pg');
const { UUID_FN, outboxEventTemplates, deliveryBodyTemplates } = require('../lib/history-sql');
const SQL = require('./seed-sql');

const DATABASE_URL = required('DATABASE_URL');
const KEY = Buffer.from(required('DATA_ENCRYPTION_KEY'), 'base64');
const APPS = Number(process.env.BENCH_SCALE_APPS ?? 1000);
const DOMAINS_PER_APP = Number(process.env.BENCH_SCALE_DOMAINS ?? 1000);
const LARGE_DOMAINS = Number(process.env.BENCH_SCALE_LARGE_DOMAINS ?? 100_000);
const HISTORY = Number(process.env.BENCH_SCALE_HISTORY_EVENTS ?? 10);

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run test/bench/scale/run.sh)`);
  return value;
}

const log = (message) => console.error(`[bench-scale] ${message}`);

async function operator(method, path, body) {
  const res = await fetch(`${required('BENCH_API')}${path}`, {
    method, headers: { authorization: `Bearer ${required('BENCH_OPERATOR_TOKEN')}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** A chain and key like the ACME issuer's: ECDSA P-256 leaf, RSA 2048 intermediate. */
function certificatePair() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-scale-cert-'));
  const ssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '365', '-subj', '/O=Bench Scale/CN=Bench Scale R1');
    ssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'leaf.key');
    ssl('req', '-new', '-key', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=shop-1.customer-1.example.com');
    ssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '90');
    const read = (name) => readFileSync(join(dir, name), 'utf8');
    const key = execFileSync('openssl', ['pkcs8', '-topk8', '-nocrypt', '-in', join(dir, 'leaf.key')], { encoding: 'utf8' });
    return { chain: read('leaf.pem').trimEnd() + '\n' + read('ca.pem'), keySealed: encryptSecret(key, KEY, SQL.CERTIFICATE_KEY_LABEL) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function seedApps(pg) {
  const limits = { live_domains: 10_000_000, api_requests_per_minute: 100_000_000 };
  const slugs = [...Array.from({ length: APPS }, (_, i) => `scale-${i + 1}`), 'scale-large'];
  const keys = {};
  for (const slug of slugs) {
    await operator('POST', '/operator/v1/applications', { slug, name: `Scale ${slug}`, plan: 'free', limits });
    keys[slug] = (await operator('POST', `/operator/v1/applications/${slug}/credentials`, {})).secret;
  }
  const now = new Date();
  const { rows } = await pg.query('SELECT id, slug FROM applications WHERE slug = ANY($1) ORDER BY created_at, id', [slugs]);
  const ids = rows.map((r) => r.id);
  await pg.query(`INSERT INTO origins (id, application_id, url, health_path, status, last_verified_at, last_error, created_at, updated_at)
    SELECT gen_random_uuid(), a.id, 'https://app-' || a.slug || '.example.net', '/healthz', 'active', $2, NULL, $2, $2 FROM applications a WHERE a.id = ANY($1)`, [ids, now]);
  const subs = ids.map(() => randomUUID());
  const events = JSON.stringify(['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted']);
  await pg.query(`INSERT INTO webhook_subscriptions (id, application_id, url, events, status, created_at, updated_at, revoked_at)
    SELECT s.id, a.id, 'https://hooks.' || a.slug || '.example.net/cds', $3, 'active', $4, $4, NULL
    FROM unnest($1::uuid[], $2::uuid[]) AS s(id, app) JOIN applications a ON a.id = s.app`, [subs, ids, events, now]);
  const secretIds = subs.map(() => randomUUID());
  const sealed = secretIds.map((id) => encryptSecret(generateWebhookSecret(), KEY, { purpose: SEAL_PURPOSES.webhookSecret, id }));
  await pg.query(`INSERT INTO webhook_secrets (id, subscription_id, secret_sealed, created_at, expires_at)
    SELECT i, s, t, $4, NULL FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS x(i, s, t)`, [secretIds, subs, sealed, now]);
  await pg.query(`INSERT INTO traffic_daily (application_id, day, requests, response_bytes)
    SELECT a, to_char($2::date - d, 'YYYY-MM-DD'), 10000 + d * 17, (10000 + d * 17) * 24000 FROM unnest($1::uuid[]) AS a CROSS JOIN generate_series(0, 29) AS d`,
  [ids, now.toISOString().slice(0, 10)]);
  const pick = (slug) => ({ slug, id: rows.find((r) => r.slug === slug).id, key: keys[slug] });
  console.log(JSON.stringify({ measured: pick('scale-1'), large: pick('scale-large') }));
  log(`${slugs.length} applications with a credential, an active origin, a webhook subscription and 30 days of traffic`);
}

/** The applications to fill: [id, ordinal, subscription id] in creation order. */
async function applications(pg) {
  const { rows } = await pg.query(`SELECT a.id, a.slug, s.id AS sub FROM applications a JOIN webhook_subscriptions s ON s.application_id = a.id
    WHERE a.slug LIKE 'scale-%' ORDER BY a.created_at, a.id`);
  return rows.map((r, i) => ({ id: r.id, n: i + 1, slug: r.slug, sub: r.sub }));
}

/**
 * Seeds the domains of `apps` ({id, n, sub, total}) in periods of about 20,000
 * domains: each statement writes every application's domains of one period,
 * oldest first, so that an application's domains lie spread over the table as
 * the API's creates leave them.
 */
async function seedDomains(pg, apps, cert) {
  const now = new Date();
  const total = apps.reduce((sum, a) => sum + a.total, 0);
  const steps = Math.max(1, Math.ceil(total / 20_000));
  const appIds = apps.map((a) => a.id);
  const outboxTemplates = outboxEventTemplates();
  const bodies = deliveryBodyTemplates();
  let done = 0;
  for (let step = 0; step < steps; step += 1) {
    const { rows } = await pg.query(SQL.DOMAINS, [appIds, apps.map((a) => a.n), apps.map((a) => a.total), now, step / steps, (step + 1) / steps]);
    const ids = rows.map((r) => r.id);
    await pg.query(SQL.CHECKS, [ids]);
    await pg.query(SQL.RUNS, [ids, now]);
    await pg.query(SQL.CERTIFICATES, [ids, cert.chain, cert.keySealed, now]);
    if (HISTORY > 0) {
      await pg.query(SQL.OUTBOX, [ids, HISTORY, now, outboxTemplates]);
      await pg.query(SQL.DELIVERIES, [ids, HISTORY, now, bodies, appIds, apps.map((a) => a.sub)]);
      await pg.query(SQL.ATTEMPTS, [ids, HISTORY, now]);
    }
    done += ids.length;
    if (step % 10 === 9 || step === steps - 1) log(`domains ${done}/${total}`);
  }
  // The live-domain counter the service keeps (register-domain.ts, delete-domain.ts);
  // counted by application after ANALYZE (planned for the empty table, each count reads every domain).
  await pg.query('ANALYZE domains');
  await pg.query(`UPDATE applications a SET live_domains = (SELECT count(*) FROM domains d WHERE d.application_id = a.id AND d.deleted_at IS NULL)
    WHERE a.id = ANY($1::uuid[])`, [appIds]);
}

async function main() {
  const command = process.argv[2];
  const pg = new Client({ connectionString: DATABASE_URL });
  await pg.connect();
  try {
    if (command === 'apps') return await seedApps(pg);
    await pg.query(UUID_FN);
    const apps = await applications(pg);
    const cert = certificatePair();
    const measured = apps.filter((a) => a.slug === 'scale-1');
    if (command === 'small') {
      await seedDomains(pg, measured.map((a) => ({ ...a, total: DOMAINS_PER_APP })), cert);
    } else if (command === 'full') {
      // The measured application's domains again, among everyone else's (its first ones would lie together at the table's start).
      await pg.query('DELETE FROM domains WHERE application_id = $1', [measured[0].id]);
      await seedDomains(pg, apps.map((a) => ({ ...a, total: a.slug === 'scale-large' ? LARGE_DOMAINS : DOMAINS_PER_APP })), cert);
    } else {
      throw new Error(`unknown command ${command} (apps, small, full)`);
    }
    log('VACUUM ANALYZE');
    await pg.query('VACUUM ANALYZE');
  } finally {
    await pg.end();
  }
  return undefined;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
