-- The database work of one POST /v1/domains, statement for statement as the
-- API's create transaction sends it (captured with log_statement='all'; see
-- docs/benchmarks.md). Run with -M extended (TypeORM's unnamed prepared
-- statements) and -D appid=<application id>. Ids and hostnames are unique per
-- transaction: :client_id plus a random 63-bit number, hashed into the uuid.
\set r random(1, 9223372036854775806)
START TRANSACTION;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT "Domain"."id" AS "Domain_id", "Domain"."application_id" AS "Domain_application_id", "Domain"."hostname" AS "Domain_hostname", "Domain"."reference" AS "Domain_reference", "Domain"."status" AS "Domain_status", "Domain"."challenge_token" AS "Domain_challenge_token", "Domain"."metadata" AS "Domain_metadata", "Domain"."created_at" AS "Domain_created_at", "Domain"."updated_at" AS "Domain_updated_at", "Domain"."deleted_at" AS "Domain_deleted_at", "Domain"."next_check_at" AS "Domain_next_check_at" FROM "domains" "Domain" WHERE (("Domain"."hostname" = 'p' || :client_id::text || '-' || :r::text || '.bench-customer.com') AND ("Domain"."deleted_at" IS NULL)) LIMIT 1;
INSERT INTO "domains"("id", "application_id", "hostname", "reference", "status", "challenge_token", "metadata", "created_at", "updated_at", "deleted_at", "next_check_at") VALUES (md5(:client_id::text || '-' || :r::text)::uuid, :appid, 'p' || :client_id::text || '-' || :r::text || '.bench-customer.com', 'ws', 'pending_dns', md5(:r::text) || md5(:client_id::text || :r::text), '{}', now(), now(), NULL, now());
INSERT INTO "domain_checks"("domain_id", "type", "status", "error_code", "message", "observed_at", "next_check_at") VALUES (md5(:client_id::text || '-' || :r::text)::uuid, 'ownership', 'pending', NULL, NULL, NULL, NULL), (md5(:client_id::text || '-' || :r::text)::uuid, 'routing', 'pending', NULL, NULL, NULL, NULL), (md5(:client_id::text || '-' || :r::text)::uuid, 'certificate', 'pending', NULL, NULL, NULL, NULL), (md5(:client_id::text || '-' || :r::text)::uuid, 'origin', 'pending', NULL, NULL, NULL, NULL);
INSERT INTO outbox (id, routing_key, payload, created_at, attempts) VALUES (gen_random_uuid(), 'domain.check.requested', '{"domain_id":"' || md5(:client_id::text || '-' || :r::text)::uuid::text || '","application_id":"' || :appid || '","reason":"created"}', now(), 0) RETURNING seq;
INSERT INTO outbox (id, routing_key, payload, created_at, attempts) VALUES (gen_random_uuid(), 'domain.changed', '{"domain_id":"' || md5(:client_id::text || '-' || :r::text)::uuid::text || '","hostname":"p' || :client_id::text || '-' || :r::text || '.bench-customer.com","application_id":"' || :appid || '","change":"created"}', now(), 0) RETURNING seq;
SELECT id FROM applications WHERE id = :appid FOR NO KEY UPDATE;
SELECT COUNT(1) AS "cnt" FROM "domains" "Domain" WHERE (("Domain"."application_id" = :appid) AND ("Domain"."deleted_at" IS NULL));
COMMIT;
