-- The database work of one POST /v1/domains, statement for statement as the
-- API sends it (captured with log_statement='all'; see docs/benchmarks.md):
-- the authentication statement (credential, application, address throttle and
-- one hit on the credential's request budget), then the registration statement
-- (live-domain counter, domain, four checks, two outbox rows), each its own
-- transaction. Run with -M prepared (named prepared statements, as the API
-- sends these two), -D appid=<application id> -D keyhash=<sha-256 of the
-- credential> -D throttlekey=auth-fail:v1:127.0.0.1 (pgbench would take the
-- colons of that literal for variables). Ids and hostnames are unique per transaction: :client_id plus a
-- random 63-bit number, hashed into the uuid. Times come from now() where the
-- API sends its own clock.
\set r random(1, 9223372036854775806)
WITH found AS (SELECT c.id AS c_id, c.application_id AS c_application_id, c.name AS c_name, c.prefix AS c_prefix,
  c.key_hash AS c_key_hash, c.revoked_at AS c_revoked_at, c.expires_at AS c_expires_at, c.replaced_by_id AS c_replaced_by_id,
  c.created_at AS c_created_at, c.last_used_at AS c_last_used_at,
  a.slug AS a_slug, a.name AS a_name, a.status AS a_status, a.plan AS a_plan, a.contact_email AS a_contact_email, a.limits AS a_limits,
  a.created_at AS a_created_at, a.updated_at AS a_updated_at, a.live_domains AS a_live_domains FROM credentials c JOIN applications a ON a.id = c.application_id AND a.deleted_at IS NULL
  WHERE c.key_hash = :keyhash AND c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > now())),
  failures AS (SELECT "count" FROM rate_counters WHERE "key" = :throttlekey AND window_start >= date_trunc('minute', now())),
  budget AS (
    INSERT INTO rate_counters ("key", window_start, reset_at, "count") SELECT CAST('api:' AS text) || CAST(found.c_id AS text), date_trunc('minute', now()), date_trunc('minute', now()) + interval '1 minute', CAST(1 AS integer) FROM found
      WHERE NOT EXISTS (SELECT 1 FROM failures WHERE "count" >= 20)
  ON CONFLICT ("key") DO UPDATE SET
    "count" = CASE WHEN rate_counters.window_start >= excluded.window_start THEN rate_counters."count" + 1 ELSE 1 END,
    reset_at = CASE WHEN rate_counters.window_start >= excluded.window_start THEN rate_counters.reset_at ELSE excluded.reset_at END,
    window_start = CASE WHEN rate_counters.window_start >= excluded.window_start THEN rate_counters.window_start ELSE excluded.window_start END
  RETURNING "count", reset_at
  )
  SELECT found.*, (SELECT "count" FROM failures) AS failures, budget."count" AS budget_count, budget.reset_at AS budget_reset_at
  FROM (SELECT 1 AS one) AS request LEFT JOIN found ON true LEFT JOIN budget ON true;
WITH admitted AS (UPDATE applications SET live_domains = live_domains + 1
       WHERE id = :appid AND live_domains < 100000000 RETURNING id),
inserted AS (INSERT INTO domains (id, application_id, hostname, reference, status, challenge_token, metadata, created_at, updated_at, deleted_at, next_check_at)
       SELECT CAST(md5(:client_id::text || '-' || :r::text) AS uuid), admitted.id, CAST('p' || :client_id::text || '-' || :r::text || '.bench-customer.com' AS varchar), CAST('ws' AS varchar), CAST('pending_dns' AS varchar),
    CAST(md5(:r::text) || md5(:client_id::text || :r::text) AS text), CAST('{}' AS text), now(), now(), CAST(NULL AS timestamptz), now() FROM admitted RETURNING id),
checks AS (INSERT INTO domain_checks (domain_id, type, status, error_code, message, observed_at, next_check_at)
       SELECT inserted.id, c.* FROM inserted CROSS JOIN (VALUES (CAST('ownership' AS varchar), CAST('pending' AS varchar), CAST(NULL AS text), CAST(NULL AS text),
        CAST(NULL AS timestamptz), CAST(NULL AS timestamptz)), (CAST('routing' AS varchar), CAST('pending' AS varchar), CAST(NULL AS text), CAST(NULL AS text),
        CAST(NULL AS timestamptz), CAST(NULL AS timestamptz)), (CAST('certificate' AS varchar), CAST('pending' AS varchar), CAST(NULL AS text), CAST(NULL AS text),
        CAST(NULL AS timestamptz), CAST(NULL AS timestamptz)), (CAST('origin' AS varchar), CAST('pending' AS varchar), CAST(NULL AS text), CAST(NULL AS text),
        CAST(NULL AS timestamptz), CAST(NULL AS timestamptz))) AS c),
messages AS (INSERT INTO outbox (id, routing_key, payload, created_at, attempts)
       SELECT m.id, m.routing_key, m.payload, now(), 0
       FROM inserted CROSS JOIN (VALUES (gen_random_uuid(), CAST('domain.check.requested' AS text), CAST('{"domain_id":"' || md5(:client_id::text || '-' || :r::text)::uuid::text || '","application_id":"' || :appid || '","reason":"created"}' AS text)),
         (gen_random_uuid(), CAST('domain.changed' AS text), CAST('{"domain_id":"' || md5(:client_id::text || '-' || :r::text)::uuid::text || '","hostname":"p' || :client_id::text || '-' || :r::text || '.bench-customer.com","application_id":"' || :appid || '","change":"created"}' AS text))) AS m(id, routing_key, payload))
SELECT COUNT(*) AS admitted FROM inserted;
