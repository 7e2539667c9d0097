// Seeds the housekeeping benchmark's database (make bench-housekeeping), migrated
// beforehand by `cdctl migrate`:
//   - BENCH_APPS applications with 1 to 3 webhook subscriptions each (1 in 20
//     revoked), written through the real repositories;
//   - BENCH_OUTBOX_ROWS published outbox rows, all published longer ago than
//     OUTBOX_RETENTION (7 days), the mix a domain's life writes: check requests,
//     domain changes and events (`event.emitted` with the domain resource);
//   - BENCH_DELIVERIES finished webhook deliveries, all created longer ago than
//     WEBHOOK_DELIVERY_RETENTION (30 days), with 1 to 3 attempts each:
//     delivered ones (1 attempt mostly, after 1 or 2 failed ones sometimes),
//     abandoned ones of revoked subscriptions (3 failed attempts), and 1% replays
//     of an earlier delivery of the same subscription.
// The bulk rows are made by generate_series in PostgreSQL, in the columns and
// formats the service writes: payloads built from templates that the real code
// produces (toDomainResource, domainEvent), timestamps spaced evenly in
// insertion order. Then VACUUM ANALYZE. Prints one line per table with its row count.
'use strict';
const { randomUUID } = require('node:crypto');
const {
  DOMAIN_CHANGES,
  CHECK_REASONS,
  encryptSecret,
  generateWebhookSecret,
  resolveLimits,
  DEFAULT_PLAN,
  REVOKED_LAST_ERROR,
  ROUTING_KEYS,
  SEAL_PURPOSES,
} = require('@cds/core');
const { createDataStore } = require('@cds/data');
const { Client } = require('pg');
const { EVENT_TYPES, outboxEventTemplates, deliveryBodyTemplates, UUID_FN, iso, eventIso, fill } = require('../lib/history-sql');

const DATABASE_URL = required('BENCH_DATABASE_URL');
const KEY = Buffer.from(required('DATA_ENCRYPTION_KEY'), 'base64');
const APPS = Number(process.env.BENCH_APPS ?? 100);
const OUTBOX_ROWS = Number(process.env.BENCH_OUTBOX_ROWS ?? 1_000_000);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 1_000_000);
/** Rows per INSERT statement: progress lines, and bounded memory in PostgreSQL. */
const CHUNK = 100_000;
const DAY_MS = 86_400_000;

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run test/bench/housekeeping/run.sh)`);
  return value;
}

const log = (message) => console.log(`[bench-housekeeping] ${message}`);

// Outbox: of every 10 rows, 2 check requests, 6 domain changes, 2 events; a domain has 5 rows.
// Payloads are compact JSON in the key order of the code that writes them (JSON.stringify).
const OUTBOX_SQL = `
  WITH apps AS (SELECT * FROM unnest($1::uuid[]) WITH ORDINALITY AS a(id, n)),
  g AS (
    SELECT i, a.id AS app, pg_temp.v4('dom' || (i / 5)) AS domain_id, pg_temp.v4('ev' || i) AS event_id,
      'shop-' || (i / 5) || '.customer-' || a.n || '.example' AS hostname,
      $2::timestamptz + (i * $3::double precision) * interval '1 millisecond' AS created_at
    FROM generate_series($4::bigint, $5::bigint) AS i JOIN apps a ON a.n = (i / 5) % $6 + 1
  )
  INSERT INTO outbox (id, routing_key, payload, created_at, published_at, attempts)
  SELECT gen_random_uuid(),
    CASE WHEN i % 10 < 2 THEN '${ROUTING_KEYS.domainCheckRequested}' WHEN i % 10 < 8 THEN '${ROUTING_KEYS.domainChanged}' ELSE '${ROUTING_KEYS.eventEmitted}' END,
    CASE
      WHEN i % 10 < 2 THEN format('{"domain_id":"%s","application_id":"%s","reason":"%s"}', domain_id, app,
        CASE WHEN i % 10 = 0 THEN '${CHECK_REASONS.created}' ELSE '${CHECK_REASONS.scheduled}' END)
      WHEN i % 10 < 8 THEN format('{"domain_id":"%s","hostname":"%s","application_id":"%s","change":"%s"}', domain_id, hostname, app,
        (ARRAY['${DOMAIN_CHANGES.created}', '${DOMAIN_CHANGES.status}', '${DOMAIN_CHANGES.certificate}', '${DOMAIN_CHANGES.status}', '${DOMAIN_CHANGES.certificate}', '${DOMAIN_CHANGES.deleted}'])[i % 10 - 1])
      ELSE ${fill('($7::text[])[CASE WHEN (i / 10) % 50 < 35 THEN 1 WHEN (i / 10) % 50 < 41 THEN 2 WHEN (i / 10) % 50 < 47 THEN 3 ELSE 4 END]', {
        domainId: 'domain_id', appId: 'app', eventId: 'event_id', hostname: 'hostname', token: "md5('t' || (i / 5)) || md5('u' || (i / 5))",
        ts: iso('created_at'), ets: eventIso('created_at'),
      })}
    END,
    created_at, created_at + interval '40 milliseconds', 0
  FROM g`;

/**
 * Deliveries: row i goes to subscription i % S; every 100th round of the
 * subscriptions is made of replays of the round before (same event, replay_of
 * the earlier delivery). Event types: 70% ready, 12% attention_required, 12%
 * recovered, 6% deleted. Abandoned: every other round of a revoked subscription.
 * Attempts: 85% one, 10% two, 5% three (delivered); three (abandoned).
 * $1-$3 subscriptions (id, application, revoked), $4 first created_at, $5 ms
 * between rows, $6 number of subscriptions, $7-$8 the rows i of this chunk.
 */
const DELIVERY_ROWS = `
  subs AS (SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::boolean[]) WITH ORDINALITY AS s(id, app, revoked, n)),
  base AS (
    SELECT i, s.id AS sub, s.app, s.revoked, (i / $6) % 100 = 99 AS replay
    FROM generate_series($7::bigint, $8::bigint) AS i JOIN subs s ON s.n = i % $6 + 1
  ),
  g AS (
    SELECT i, sub, app, replay,
      $4::timestamptz + (i * $5::double precision) * interval '1 millisecond' AS created_at,
      CASE WHEN replay THEN i - $6 ELSE i END AS src,
      CASE WHEN revoked AND (i / $6) % 2 = 0 AND NOT replay THEN 'abandoned' ELSE 'delivered' END AS state,
      CASE WHEN revoked AND (i / $6) % 2 = 0 AND NOT replay THEN 3 WHEN (i * 7919) % 100 < 85 THEN 1 WHEN (i * 7919) % 100 < 95 THEN 2 ELSE 3 END AS k
    FROM base
  ),
  -- Attempt n of a delivery: the first 20 ms after its creation, the next ones 1 min and 5 min (the retry schedule) after the one before ended.
  a AS (
    SELECT g.i, g.state, g.k, n AS attempt,
      g.created_at + interval '20 milliseconds'
        + CASE n WHEN 1 THEN interval '0' WHEN 2 THEN interval '1 minute' ELSE interval '6 minutes' END
        + (n - 1) * CASE WHEN g.state = 'abandoned' THEN interval '10 seconds' ELSE interval '80 milliseconds' END AS started_at,
      CASE WHEN g.state = 'abandoned' THEN 10000 WHEN n < g.k THEN 80 ELSE 40 + (g.i * 31) % 200 END AS duration_ms,
      CASE WHEN g.state = 'abandoned' THEN NULL WHEN n < g.k THEN 503 ELSE 200 END AS status_code,
      CASE WHEN g.state = 'abandoned' THEN 'no answer within 10000 ms' WHEN n < g.k THEN 'receiver answered HTTP 503' END AS error
    FROM g CROSS JOIN LATERAL generate_series(1, g.k) AS n
  )`;

const DELIVERIES_SQL = `
  WITH ${DELIVERY_ROWS}
  INSERT INTO webhook_deliveries (id, application_id, subscription_id, event_id, event_type, payload, state, attempts, next_attempt_at,
    last_attempt_at, last_status_code, last_error, created_at, delivered_at, replay_of, lease_id)
  SELECT pg_temp.v4('d' || g.i), g.app, g.sub, pg_temp.v4('e' || g.src), t.type,
    ${fill('($9::text[])[t.n]', {
      domainId: "pg_temp.v4('dom' || g.src)", appId: 'g.app', eventId: "pg_temp.v4('e' || g.src)", hostname: "'shop-' || g.src || '.customer.example'",
      token: "md5('t' || g.src) || md5('u' || g.src)", ts: iso('src.created_at'), ets: eventIso('src.created_at'),
    })},
    g.state, g.k, NULL, last.started_at, last.status_code,
    CASE WHEN g.state = 'abandoned' THEN '${REVOKED_LAST_ERROR}' END,
    g.created_at, CASE WHEN g.state = 'delivered' THEN last.started_at + last.duration_ms * interval '1 millisecond' END,
    CASE WHEN g.replay THEN pg_temp.v4('d' || g.src) END, NULL
  FROM g JOIN a AS last ON last.i = g.i AND last.attempt = g.k
  CROSS JOIN LATERAL (SELECT $4::timestamptz + (g.src * $5::double precision) * interval '1 millisecond' AS created_at) src
  CROSS JOIN LATERAL (SELECT n, (ARRAY['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted'])[n] AS type
    FROM (SELECT CASE WHEN g.src % 50 < 35 THEN 1 WHEN g.src % 50 < 41 THEN 2 WHEN g.src % 50 < 47 THEN 3 ELSE 4 END AS n) x) t`;

const ATTEMPTS_SQL = `
  WITH ${DELIVERY_ROWS}
  INSERT INTO webhook_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, error)
  SELECT gen_random_uuid(), pg_temp.v4('d' || i), attempt, started_at, duration_ms, status_code, error FROM a`;

async function main() {
  const now = Date.now();
  // --- applications and subscriptions, through the real repositories ----------
  const store = await createDataStore({ url: DATABASE_URL });
  const appIds = [];
  const subs = [];
  try {
    const created = new Date(now - 400 * DAY_MS);
    for (let a = 0; a < APPS; a += 1) {
      const app = {
        id: randomUUID(), slug: `customer-${a + 1}`, name: `Customer ${a + 1}`, status: 'active', plan: DEFAULT_PLAN, contactEmail: `ops@customer-${a + 1}.example`,
        limits: resolveLimits(DEFAULT_PLAN, { live_domains: 100_000 }), createdAt: created, updatedAt: created, deletedAt: null,
      };
      await store.run((r) => r.applications.insert(app));
      appIds.push(app.id);
      for (let s = 0; s < (a % 3) + 1; s += 1) {
        const revoked = subs.length % 20 === 19;
        const sub = {
          id: randomUUID(), applicationId: app.id, url: `https://hooks.customer-${a + 1}.example/cds/${s + 1}`, events: EVENT_TYPES,
          status: revoked ? 'revoked' : 'active', createdAt: created, updatedAt: created, revokedAt: revoked ? new Date(now - 31 * DAY_MS) : null,
        };
        const secretId = randomUUID();
        const secretSealed = encryptSecret(generateWebhookSecret(), KEY, { purpose: SEAL_PURPOSES.webhookSecret, id: secretId });
        await store.run((r) => r.webhookSubscriptions.insert(sub, { id: secretId, subscriptionId: sub.id, secretSealed, createdAt: created, expiresAt: null }));
        subs.push({ id: sub.id, app: app.id, revoked });
      }
    }
  } finally {
    await store.close();
  }
  log(`${APPS} applications, ${subs.length} webhook subscriptions (${subs.filter((s) => s.revoked).length} revoked)`);

  // --- the bulk rows ----------------------------------------------------------
  const pg = new Client({ connectionString: DATABASE_URL });
  await pg.connect();
  try {
    await pg.query(UUID_FN);
    // Outbox: created over 30 days ending 8 days ago (OUTBOX_RETENTION 7d).
    const outboxStart = new Date(now - 38 * DAY_MS);
    const outboxStep = (30 * DAY_MS) / OUTBOX_ROWS;
    const outboxTemplates = outboxEventTemplates();
    for (let from = 0; from < OUTBOX_ROWS; from += CHUNK) {
      const to = Math.min(from + CHUNK, OUTBOX_ROWS) - 1;
      await pg.query(OUTBOX_SQL, [appIds, outboxStart, outboxStep, from, to, appIds.length, outboxTemplates]);
      log(`outbox rows ${to + 1}/${OUTBOX_ROWS}`);
    }
    // Deliveries: created over 60 days ending 31 days ago (WEBHOOK_DELIVERY_RETENTION 30d).
    const deliveryStart = new Date(now - 91 * DAY_MS);
    const deliveryStep = (60 * DAY_MS) / DELIVERIES;
    const bodies = deliveryBodyTemplates();
    for (let from = 0; from < DELIVERIES; from += CHUNK) {
      const to = Math.min(from + CHUNK, DELIVERIES) - 1;
      const params = [subs.map((s) => s.id), subs.map((s) => s.app), subs.map((s) => s.revoked), deliveryStart, deliveryStep, subs.length, from, to];
      await pg.query(DELIVERIES_SQL, [...params, bodies]);
      await pg.query(ATTEMPTS_SQL, params);
      log(`webhook deliveries ${to + 1}/${DELIVERIES}`);
    }
    log('VACUUM ANALYZE');
    await pg.query('VACUUM ANALYZE');
    const counts = await pg.query(`SELECT
      (SELECT count(*) FROM outbox) AS outbox,
      (SELECT count(*) FROM webhook_deliveries) AS deliveries,
      (SELECT count(*) FROM webhook_deliveries WHERE state = 'abandoned') AS abandoned,
      (SELECT count(*) FROM webhook_deliveries WHERE replay_of IS NOT NULL) AS replays,
      (SELECT count(*) FROM webhook_attempts) AS attempts`);
    const c = counts.rows[0];
    log(`seeded: outbox ${c.outbox}, webhook_deliveries ${c.deliveries} (${c.abandoned} abandoned, ${c.replays} replays), webhook_attempts ${c.attempts}`);
  } finally {
    await pg.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
