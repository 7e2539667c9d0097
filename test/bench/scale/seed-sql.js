// SQL of the scale benchmark's seed (make bench-scale): domains, their checks,
// certificates and a month of outbox and webhook history, in the columns and
// formats the service writes (register-domain.ts, the checker's run-step.ts,
// the relay, the dispatcher's fan-out). DOMAINS takes the applications in $1
// (uuid[]) with their ordinals in $2 (int[]); the others the domain ids in $1.
'use strict';
const { CHECK_REASONS, DOMAIN_CHANGES, ROUTING_KEYS } = require('@cds/core');
const { fill, iso, eventIso } = require('../lib/history-sql');

const EDGE_TARGET = 'edge.localhost';

// Of every 100 domains: 88 ready, 6 pending_dns, 3 attention_required, 3 deleted.
const STATUS = `CASE WHEN k < 88 THEN 'ready' WHEN k < 94 THEN 'pending_dns' WHEN k < 97 THEN 'attention_required' ELSE 'deleting' END`;

/**
 * The domains with numbers in ($5, $6] of each application ($3 its count),
 * as fractions of its count, in order of creation: every application's
 * domains of one period, interleaved, as the API writes them. Created evenly
 * over the 400 days before $4 (now); live domains next due from 10 minutes to
 * a day after $4 (a checker that keeps up; the bench makes the measured
 * application's due itself). Returns the ids.
 */
const DOMAINS = `
  WITH apps AS (SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[]) AS a(id, n, total)),
  g AS (
    SELECT a.id AS app, a.n, i, (i * 37) % 100 AS k,
      $4::timestamptz - interval '400 days' + (i::double precision / a.total) * interval '399 days' AS created_at
    FROM apps a CROSS JOIN LATERAL generate_series(floor($5::double precision * a.total)::int + 1, floor($6::double precision * a.total)::int) AS i
  )
  INSERT INTO domains (id, application_id, hostname, reference, status, challenge_token, metadata, created_at, updated_at, deleted_at,
    next_check_at, check_count)
  SELECT gen_random_uuid(), app, 'shop-' || i || '.customer-' || n || '.example.com', 'ws-' || (i / 3), ${STATUS},
    md5(random()::text) || md5(random()::text),
    format('{"customer_id":"cus_%s","plan":"%s"}', i, CASE WHEN i % 4 = 0 THEN 'pro' ELSE 'starter' END),
    created_at, created_at + interval '1 hour', CASE WHEN k >= 97 THEN created_at + interval '2 days' END,
    CASE WHEN k < 97 THEN $4::timestamptz + interval '10 minutes' + random() * interval '1 day' END,
    CASE WHEN k < 88 THEN 30 ELSE 5 END
  FROM g ORDER BY created_at
  RETURNING id`;

const DOMAINS_OF = 'SELECT * FROM domains WHERE id = ANY($1::uuid[])';

/** Four checks per domain as the checker last wrote them (failing ones carry the domain's next_check_at). */
const CHECKS = `
  INSERT INTO domain_checks (domain_id, type, status, error_code, message, observed_at, next_check_at)
  SELECT d.id, t.type, s.status, s.code, s.message, CASE WHEN s.status = 'pending' THEN NULL ELSE d.updated_at END,
    CASE WHEN s.status = 'failing' THEN d.next_check_at END
  FROM (${DOMAINS_OF}) d
  CROSS JOIN unnest(ARRAY['ownership', 'routing', 'certificate', 'origin']) AS t(type)
  CROSS JOIN LATERAL (SELECT
    CASE
      WHEN d.status = 'pending_dns' AND t.type IN ('ownership', 'routing') THEN 'failing'
      WHEN d.status = 'pending_dns' THEN 'pending'
      WHEN d.status = 'attention_required' AND t.type = 'routing' THEN 'failing'
      ELSE 'passing' END AS status) x
  CROSS JOIN LATERAL (SELECT x.status,
    CASE WHEN x.status <> 'failing' THEN NULL WHEN t.type = 'ownership' THEN 'txt_record_not_found'
      WHEN d.status = 'pending_dns' THEN 'cname_not_found' ELSE 'cname_target_mismatch' END AS code,
    CASE WHEN x.status <> 'failing' THEN NULL
      WHEN t.type = 'ownership' THEN format('No TXT record found at _custom-domain-challenge.%s; expected "custom-domain-verify=%s".', d.hostname, d.challenge_token)
      WHEN d.status = 'pending_dns' THEN format('No CNAME record found at %s; expected ${EDGE_TARGET}.', d.hostname)
      ELSE format('The CNAME of %s points to old-proxy.example.net; expected ${EDGE_TARGET}.', d.hostname) END AS message) s`;

/** The ready domains' certificates: $2 chain, $3 sealed key (one real pair, the same bytes for every row), $4 now. */
const CERTIFICATES = `
  INSERT INTO certificates (hostname, domain_id, issuer, pem_chain, key_sealed, not_before, not_after, created_at)
  SELECT d.hostname, d.id, 'acme', $2, $3, $4::timestamptz - interval '30 days', $4::timestamptz + interval '60 days', $4::timestamptz - interval '30 days'
  FROM (${DOMAINS_OF}) d WHERE d.status = 'ready'`;

/**
 * $2 outbox rows per domain over the 30 days before $3 (now), all published:
 * of every 10, 2 check requests, 6 domain changes and 2 events (the mix of a
 * domain's life, as in make bench-housekeeping). $4 the event.emitted payload templates.
 */
const HISTORY_ROWS = `
  h AS (
    SELECT d.id AS domain_id, d.application_id AS app, d.hostname, d.challenge_token, j,
      pg_temp.v4('ev' || d.id || j) AS event_id, pg_temp.v4('dl' || d.id || j) AS delivery_id,
      -- The same time in each statement that names the row (hashes, not random()); each domain's
      -- rows take turns from a point of its own, so that every kind of row is spread over the month.
      $3::timestamptz - interval '30 days'
        + (((j + (hashtext(d.id::text) & 2147483647) % $2) % $2 + ((hashtext(d.id::text || j) & 2147483647) % 1000) / 1000.0) / $2) * interval '30 days' AS created_at
    FROM (${DOMAINS_OF}) d CROSS JOIN generate_series(0, $2::int - 1) AS j
  )`;

const OUTBOX = `
  WITH ${HISTORY_ROWS}
  INSERT INTO outbox (id, routing_key, payload, created_at, published_at, attempts)
  SELECT gen_random_uuid(),
    CASE WHEN j % 10 < 2 THEN '${ROUTING_KEYS.domainCheckRequested}' WHEN j % 10 < 8 THEN '${ROUTING_KEYS.domainChanged}' ELSE '${ROUTING_KEYS.eventEmitted}' END,
    CASE
      WHEN j % 10 < 2 THEN format('{"domain_id":"%s","application_id":"%s","reason":"%s"}', domain_id, app,
        CASE WHEN j = 0 THEN '${CHECK_REASONS.created}' ELSE '${CHECK_REASONS.scheduled}' END)
      WHEN j % 10 < 8 THEN format('{"domain_id":"%s","hostname":"%s","application_id":"%s","change":"%s"}', domain_id, hostname, app,
        (ARRAY['${DOMAIN_CHANGES.created}', '${DOMAIN_CHANGES.status}', '${DOMAIN_CHANGES.certificate}', '${DOMAIN_CHANGES.status}', '${DOMAIN_CHANGES.certificate}', '${DOMAIN_CHANGES.status}'])[j % 10 - 1])
      ELSE ${fill('($4::text[])[1 + j % 3]', {
        domainId: 'domain_id', appId: 'app', eventId: 'event_id', hostname: 'hostname', token: 'challenge_token', ts: iso('created_at'), ets: eventIso('created_at'),
      })}
    END,
    created_at, created_at + interval '40 milliseconds', 0
  FROM h`;

/** One delivery per event to its application's subscription ($5 applications, $6 their subscriptions), delivered at the first attempt. */
const DELIVERIES = `
  WITH ${HISTORY_ROWS}, subs AS (SELECT * FROM unnest($5::uuid[], $6::uuid[]) AS s(app, id))
  INSERT INTO webhook_deliveries (id, application_id, subscription_id, event_id, event_type, payload, state, attempts, next_attempt_at,
    last_attempt_at, last_status_code, last_error, created_at, delivered_at, replay_of, lease_id)
  SELECT h.delivery_id, h.app, s.id, h.event_id, (ARRAY['domain.ready', 'domain.attention_required', 'domain.recovered'])[1 + j % 3],
    ${fill('($4::text[])[1 + j % 3]', {
      domainId: 'h.domain_id', appId: 'h.app', eventId: 'h.event_id', hostname: 'h.hostname', token: 'h.challenge_token', ts: iso('h.created_at'), ets: eventIso('h.created_at'),
    })},
    'delivered', 1, NULL, h.created_at + interval '20 milliseconds', 200, NULL, h.created_at, h.created_at + interval '80 milliseconds', NULL, NULL
  FROM h JOIN subs s ON s.app = h.app WHERE j % 10 >= 8`;

const ATTEMPTS = `
  WITH ${HISTORY_ROWS}
  INSERT INTO webhook_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, error)
  SELECT gen_random_uuid(), delivery_id, 1, created_at + interval '20 milliseconds', 60, 200, NULL FROM h WHERE j % 10 >= 8`;

module.exports = { DOMAINS, CHECKS, CERTIFICATES, OUTBOX, DELIVERIES, ATTEMPTS };
