// SQL of the scale benchmark's seed (make bench-scale): domains, their checks,
// their last ten check runs, certificates and a month of outbox and webhook
// history, in the columns and formats the service writes (register-domain.ts,
// the checker's run-step.ts and check-runs.repository.ts, the relay, the
// dispatcher's fan-out). DOMAINS takes the applications in $1 (uuid[]) with
// their ordinals in $2 (int[]); the others the domain ids in $1.
'use strict';
const {
  CERTIFICATE_WAITING_MESSAGE, CHECK_REASONS, CHECK_TYPES, DOMAIN_CHANGES, ROUTING_KEYS, SEAL_PURPOSES, evaluateOrigin, evaluateOwnership, evaluateRouting,
} = require('@cds/core');
const { RECENT_RUNS_KEPT } = require('@cds/data');
// The function the checker's record statement writes a run's `checks` with.
const { runChecksText } = require('@cds/data/dist/repositories/run-checks-text');
const { ORIGIN_PROBE_TIMEOUT_MS } = require('@cds/outbound');
const { fill, iso, eventIso } = require('../lib/history-sql');

const EDGE_TARGET = 'edge.localhost';

// Of every 100 domains: 88 ready, 6 pending_dns, 3 attention_required, 3 deleted.
const STATUS = `CASE WHEN k < 88 THEN 'ready' WHEN k < 94 THEN 'pending_dns' WHEN k < 97 THEN 'attention_required' ELSE 'deleting' END`;

/*
 * The shape of a domain's history, from a hash of its hostname (`h`, known
 * when the domain row is written and when its runs are), so that the domain's
 * status_runs and its kept runs tell the same story:
 * - ready (and deleted, ready until deleted): ready since run READY_FROM
 *   (0 to 3) of its check_count runs; 4 in 100 have a blip in their last ten
 *   runs: BLIP_LENGTH (1, or 2 for a quarter of them) inconclusive failed runs
 *   from run BLIP_AT of the ten, then a passing confirming run (a blip never
 *   lasts the 3 confirmations and the 15 minutes of CHECK_OUTAGE_GRACE);
 * - attention_required: half entered it within their last ten runs (run
 *   ENTERED_AT, 3 to 8: a routing failure seen by a scheduled run, confirmed by
 *   two confirming runs, then runs on CHECK_SCHEDULE_ATTENTION), half long ago;
 * - pending_dns: pending since created.
 */
const HASH = (hostname) => `(hashtext(${hostname}) & 2147483647)`;
const READY_FROM = (h) => `(${h} % 4)`;
const BLIP_AT = (h) => `CASE WHEN ${h} % 100 < 4 THEN 1 + (${h} / 100) % 6 END`;
const BLIP_LENGTH = (h) => `CASE WHEN (${h} / 1000) % 4 = 0 THEN 2 ELSE 1 END`;
const ENTERED_AT = (h) => `CASE WHEN ${h} % 2 = 0 THEN 3 + (${h} / 2) % 6 END`;
/** Runs every domain has had (check_count): at least the ten kept. */
const CHECK_COUNT = `CASE WHEN k < 88 THEN 30 ELSE 20 END`;
/** Runs since the domain entered its status (domains.status_runs, as the checker's record statement counts them). */
const STATUS_RUNS = (h) => `CASE WHEN k < 88 THEN 30 - 1 - ${READY_FROM(h)} WHEN k < 94 THEN 20
  WHEN k < 97 THEN COALESCE(${RECENT_RUNS_KEPT} - 1 - ${ENTERED_AT(h)}, 15) ELSE 20 - 1 - ${READY_FROM(h)} END`;

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
    SELECT a.id AS app, a.n, i, (i * 37) % 100 AS k, 'shop-' || i || '.customer-' || a.n || '.example.com' AS hostname,
      $4::timestamptz - interval '400 days' + (i::double precision / a.total) * interval '399 days' AS created_at
    FROM apps a CROSS JOIN LATERAL generate_series(floor($5::double precision * a.total)::int + 1, floor($6::double precision * a.total)::int) AS i
  )
  INSERT INTO domains (id, application_id, hostname, reference, status, challenge_token, metadata, created_at, updated_at, deleted_at,
    next_check_at, check_count, status_runs)
  SELECT gen_random_uuid(), app, hostname, 'ws-' || (i / 3), ${STATUS},
    md5(random()::text) || md5(random()::text),
    format('{"customer_id":"cus_%s","plan":"%s"}', i, CASE WHEN i % 4 = 0 THEN 'pro' ELSE 'starter' END),
    created_at, created_at + interval '1 hour', CASE WHEN k >= 97 THEN created_at + interval '2 days' END,
    CASE WHEN k < 97 THEN $4::timestamptz + interval '10 minutes' + random() * interval '1 day' END,
    ${CHECK_COUNT}, ${STATUS_RUNS(HASH('hostname'))}
  FROM g ORDER BY created_at
  RETURNING id`;

const DOMAINS_OF = 'SELECT * FROM domains WHERE id = ANY($1::uuid[])';

/** Text placeholders in what a run saw, replaced per domain in SQL (none needs escaping in JSON). */
const PH = { hostname: 'placeholder-hostname.invalid', token: 'placeholder-token', slug: 'placeholder-slug' };
const PASS = { status: 'passing', errorCode: null, message: null };
/** The origin seed.js gives each application, and the URL the checker's probe asks (probeTarget). */
const ORIGIN_HOST = `app-${PH.slug}.example.net`;
const probeFailed = (reason, message) => evaluateOrigin({ kind: 'probed', target: `https://${ORIGIN_HOST}/healthz`, ok: false, reason, message });

/**
 * What a run saw, by check (the others passing), as checks.ts words it: the
 * checks of a pending_dns domain whose records are not published (the
 * certificate waits, the origin answers), of a domain whose CNAME now points
 * elsewhere (attention_required; its certificate, still valid, passes), and a
 * ready domain's blips, inconclusive: the origin answering 503 during a deploy,
 * the origin not answering within the probe's timeout, the resolvers timing out.
 */
const SEEN = {
  passing: {},
  pending: {
    ownership: evaluateOwnership(PH.hostname, PH.token, { records: [] }),
    routing: evaluateRouting(PH.hostname, EDGE_TARGET, { records: [] }),
    certificate: { status: 'pending', errorCode: null, message: CERTIFICATE_WAITING_MESSAGE },
  },
  moved: { routing: evaluateRouting(PH.hostname, EDGE_TARGET, { records: ['old-proxy.example.net'], complete: true }) },
  origin503: { origin: probeFailed('error_status', 'the origin answered 503') },
  originTimeout: { origin: probeFailed('timeout', `no answer from ${ORIGIN_HOST} within ${ORIGIN_PROBE_TIMEOUT_MS / 1000} s`) },
  dnsTimeout: {
    ownership: evaluateOwnership(PH.hostname, PH.token, { error: 'ETIMEOUT' }),
    routing: evaluateRouting(PH.hostname, EDGE_TARGET, { records: [], error: 'ETIMEOUT' }),
  },
};
const seenChecks = (set) => CHECK_TYPES.map((type) => ({ type, ...PASS, ...SEEN[set][type] }));

const literal = (value) => (value === null ? 'NULL' : `'${String(value).replaceAll("'", "''")}'`);
/** A text with the placeholders replaced by a domain's (`d`) and its application's (`a`, its slug). */
const filled = (text, d = 'd', a = 'a') =>
  `replace(replace(replace(${text}, '${PH.hostname}', ${d}.hostname), '${PH.token}', ${d}.challenge_token), '${PH.slug}', ${a}.slug)`;

/** The check rows of each set: (seen, type, status, error_code, message with placeholders). */
const SEEN_CHECKS = `seen_checks (seen, type, status, error_code, message) AS (VALUES ${Object.keys(SEEN).flatMap((set) => seenChecks(set).map((c) =>
  `(${literal(set)}, ${literal(c.type)}, ${literal(c.status)}, ${literal(c.status === 'failing' ? c.errorCode : null)}, ${literal(c.message)})`)).join(', ')})`;

/** The `checks` text of a run of each set, as the checker's record statement writes it (runChecksText), with placeholders. */
const SEEN_RUNS = `seen_runs (seen, checks) AS (VALUES ${Object.keys(SEEN).map((set) => `(${literal(set)}, ${literal(runChecksText(seenChecks(set)))})`).join(', ')})`;

/** The set of checks a domain's last run saw, by its status. */
const LAST_SEEN = `CASE d.status WHEN 'pending_dns' THEN 'pending' WHEN 'attention_required' THEN 'moved' ELSE 'passing' END`;

/**
 * Four checks per domain as the checker last wrote them: what the last run saw
 * (a pending check has no observation time; failing ones carry the domain's
 * next_check_at). No streak: a ready domain's last run passed, and a domain in
 * another status keeps none (DECISIONS §11).
 */
const CHECKS = `
  WITH ${SEEN_CHECKS}
  INSERT INTO domain_checks (domain_id, type, status, error_code, message, observed_at, next_check_at, failed_runs, failing_since, inconclusive)
  SELECT d.id, c.type, c.status, c.error_code, ${filled('c.message')}, CASE WHEN c.status = 'pending' THEN NULL ELSE d.updated_at END,
    CASE WHEN c.status = 'failing' THEN d.next_check_at END, 0, NULL, false
  FROM (${DOMAINS_OF}) d JOIN applications a ON a.id = d.application_id
  JOIN seen_checks c ON c.seen = ${LAST_SEEN}`;

/**
 * The domains' last ${RECENT_RUNS_KEPT} check runs (domain_check_runs), as the checker's
 * record statement leaves them: slot = the run's number modulo ${RECENT_RUNS_KEPT}, the
 * newest run in the last 10 minutes ($2 now; a deleted domain's before its
 * deletion), each earlier one a schedule's delay before the next
 * (CHECK_INTERVAL_LIVE 10m, CHECK_SCHEDULE_PENDING's last 1h,
 * CHECK_SCHEDULE_CONFIRM 30s,1m, CHECK_SCHEDULE_ATTENTION 30s,1m,2m,5m; a
 * recheck between two, 2 in 100 runs). Kinds of run, by the domain's shape
 * (READY_FROM and the others above):
 * - passing: ready to ready, all passing; recovered: the confirming run that
 *   ends a blip, all passing;
 * - blip: ready to ready, an inconclusive failure (the first scheduled, a
 *   second one confirming);
 * - moved, confirming, entered: the routing failure of an attention_required
 *   domain seen by a scheduled run, then two confirming runs, the second taking
 *   the domain to attention_required; attention: attention_required to itself;
 * - pending: pending_dns to itself.
 * Durations as the checker measures a run: the origin probe's HTTPS request
 * (40 to 240 ms, 2 in 100 up to 1.5 s more), 10 s for a probe that times out,
 * 6 s for DNS lookups that time out (2 tries of 3 s).
 */
const RUNS = `
  WITH ${SEEN_RUNS},
  d AS (
    SELECT d.id, d.hostname, d.challenge_token, a.slug, d.status, d.check_count, ${HASH('d.hostname')} AS h,
      COALESCE(d.deleted_at, $2::timestamptz) - ((hashtext(d.id::text) & 2147483647) % 600) * interval '1 second' AS last_start
    FROM (${DOMAINS_OF}) d JOIN applications a ON a.id = d.application_id
  ),
  r AS (
    SELECT d.*, i, hashtext(d.id::text || '/' || i) & 2147483647 AS hr,
      ${BLIP_AT('d.h')} AS blip_at, ${BLIP_LENGTH('d.h')} AS blip_length, ${ENTERED_AT('d.h')} AS entered_at
    FROM d CROSS JOIN generate_series(0, ${RECENT_RUNS_KEPT} - 1) AS i
  ),
  k AS (
    SELECT r.*, CASE
        WHEN status = 'pending_dns' THEN 'pending'
        WHEN status = 'attention_required' THEN CASE WHEN entered_at IS NULL OR i > entered_at THEN 'attention' WHEN i = entered_at THEN 'entered'
          WHEN i = entered_at - 1 THEN 'confirming' WHEN i = entered_at - 2 THEN 'moved' ELSE 'passing' END
        WHEN blip_at IS NULL OR i < blip_at OR i > blip_at + blip_length THEN 'passing'
        WHEN i = blip_at + blip_length THEN 'recovered'
        ELSE 'blip' END AS kind
    FROM r
  ),
  x AS (
    SELECT k.*,
      CASE WHEN kind IN ('passing', 'pending', 'attention') AND hr % 100 < 2 THEN 'recheck'
        WHEN kind IN ('recovered', 'confirming', 'entered') OR (kind = 'blip' AND i > blip_at) THEN 'confirm'
        ELSE 'schedule' END AS trigger,
      CASE kind WHEN 'passing' THEN 'passing' WHEN 'recovered' THEN 'passing' WHEN 'pending' THEN 'pending'
        WHEN 'blip' THEN CASE WHEN (h / 10000) % 20 < 12 THEN 'origin503' WHEN (h / 10000) % 20 < 17 THEN 'originTimeout' ELSE 'dnsTimeout' END
        ELSE 'moved' END AS seen
    FROM k
  ),
  y AS (
    SELECT x.*,
      -- Seconds since the run before: the delay it scheduled (or a recheck's), and the scheduler's lag.
      CASE
        WHEN trigger = 'recheck' THEN 60 + hr % 480
        WHEN kind = 'pending' THEN 3600
        WHEN kind = 'blip' THEN CASE WHEN i > blip_at THEN 30 ELSE 600 END
        WHEN kind = 'recovered' THEN CASE WHEN blip_length = 1 THEN 30 ELSE 60 END
        WHEN kind = 'confirming' THEN 30
        WHEN kind = 'entered' THEN 60
        WHEN kind = 'attention' AND i - entered_at <= 4 THEN (ARRAY[30, 60, 120, 300])[i - entered_at]
        ELSE 600 END + (hr / 100) % 4 AS since_before,
      CASE seen WHEN 'originTimeout' THEN ${ORIGIN_PROBE_TIMEOUT_MS} + floor(random() * 60) WHEN 'dnsTimeout' THEN 6000 + floor(random() * 60)
        ELSE 40 + floor(200 * random() ^ 2) + CASE WHEN random() < 0.02 THEN floor(random() * 1500) ELSE 0 END END AS duration_ms
    FROM x
  )
  INSERT INTO domain_check_runs (domain_id, slot, started_at, duration_ms, trigger, status_before, status_after, checks)
  SELECT y.id, (y.check_count - ${RECENT_RUNS_KEPT} + y.i) % ${RECENT_RUNS_KEPT},
    y.last_start - COALESCE(sum(y.since_before) OVER (PARTITION BY y.id ORDER BY y.i DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) * interval '1 second',
    y.duration_ms, y.trigger,
    CASE kind WHEN 'pending' THEN 'pending_dns' WHEN 'attention' THEN 'attention_required' ELSE 'ready' END,
    CASE kind WHEN 'pending' THEN 'pending_dns' WHEN 'attention' THEN 'attention_required' WHEN 'entered' THEN 'attention_required' ELSE 'ready' END,
    ${filled('s.checks', 'y', 'y')}
  FROM y JOIN seen_runs s ON s.seen = y.seen`;

/** The label of the one sealed key every certificate row holds: the first hostname's, what measure.js opens them with. */
const CERTIFICATE_KEY_LABEL = { purpose: SEAL_PURPOSES.certificateKey, id: 'shop-1.customer-1.example.com' };

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

module.exports = { DOMAINS, CHECKS, RUNS, CERTIFICATES, CERTIFICATE_KEY_LABEL, OUTBOX, DELIVERIES, ATTEMPTS };
