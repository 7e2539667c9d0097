#!/usr/bin/env bash
# Restore drill (docs/operations.md, "Restore drill"): proves a backup restores.
# Takes a dump, restores it with pg_restore into a new scratch database, runs
# `cdctl migrate` and `cdctl doctor` against it, prints its row counts and drops
# it. Exits 0 only when every step passed; the doctor's report is printed.
#
#   scripts/restore-drill.sh --scratch-server postgres://postgres@db:5432/postgres SOURCE
#
# SOURCE, one of:
#   --dump FILE        a dump already made (pg_dump --format=custom, or GET /operator/v1/backup)
#   --from-api URL     GET URL/operator/v1/backup with the bearer token in OPERATOR_TOKEN
#                      (the API's OPERATOR_PORT, e.g. http://127.0.0.1:8082; OPERATOR_BACKUP=true)
#   --from-database URL  pg_dump of that database (a pg_dump at least as new as its server)
# --scratch-server URL: a PostgreSQL URL whose user may create databases; the
#   scratch database cds_restore_drill_<UTC time>_<random> is created there (its
#   path names only the database to connect to for CREATE/DROP DATABASE).
# --keep: leave the scratch database (its URL is printed) and the dump file.
#
# cdctl reads the rest of its settings from the environment as the services do
# (CERT_ISSUER, ACME_DIRECTORY_URL, DNS_SERVERS, EDGE_TARGET, AMQP_URL): run the
# drill with the deployment's settings, or the doctor judges another deployment.
# CDCTL names the cdctl command (default: cdctl on the PATH, else this checkout's).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
fail() { echo "restore drill: FAILED: $*" >&2; exit 1; }

dump="" from_api="" from_db="" scratch_server="" keep=false
while [ $# -gt 0 ]; do
  case $1 in
    --dump) dump=${2:?}; shift 2 ;;
    --from-api) from_api=${2:?}; shift 2 ;;
    --from-database) from_db=${2:?}; shift 2 ;;
    --scratch-server) scratch_server=${2:?}; shift 2 ;;
    --keep) keep=true; shift ;;
    -h|--help) usage ;;
    *) echo "restore drill: unknown argument $1" >&2; usage ;;
  esac
done
[ -n "$scratch_server" ] || { echo "restore drill: --scratch-server is required" >&2; usage; }
[ -n "$dump" ] || [ -n "$from_api" ] || [ -n "$from_db" ] || { echo "restore drill: give --dump, --from-api or --from-database" >&2; usage; }
for tool in pg_dump pg_restore psql; do command -v "$tool" >/dev/null || fail "$tool is not installed"; done

if [ -n "${CDCTL:-}" ]; then read -r -a cdctl <<<"$CDCTL"
elif command -v cdctl >/dev/null; then cdctl=(cdctl)
else cdctl=(node "$root/services/cli/bin/cdctl.js")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/restore-drill.XXXXXX")
scratch_name="cds_restore_drill_$(date -u +%Y%m%d%H%M%S)_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
# The scratch database's URL: the server's with the path replaced (query, such as sslmode, kept).
scratch_url=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.toString())' "$scratch_server" "$scratch_name")
created=false
cleanup() {
  if $created && ! $keep; then
    psql -X -q -v ON_ERROR_STOP=1 -d "$scratch_server" -c "DROP DATABASE IF EXISTS $scratch_name WITH (FORCE)" >/dev/null \
      || echo "restore drill: could not drop $scratch_name; drop it by hand" >&2
  fi
  if $keep; then echo "restore drill: kept $work and $scratch_url" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# 1. The dump.
if [ -n "$from_api" ]; then
  [ -n "${OPERATOR_TOKEN:-}" ] || fail "--from-api needs OPERATOR_TOKEN"
  dump=$work/backup.dump
  echo "restore drill: GET ${from_api%/}/operator/v1/backup"
  # curl fails on a cut transfer (pg_dump failed midway) as on an error status.
  curl -fsS -o "$dump" -H "Authorization: Bearer $OPERATOR_TOKEN" "${from_api%/}/operator/v1/backup" || fail "the backup request failed"
elif [ -n "$from_db" ]; then
  dump=$work/backup.dump
  echo "restore drill: pg_dump of the source database"
  pg_dump --format=custom --no-owner --file="$dump" --dbname="$from_db" || fail "pg_dump failed"
fi
[ -s "$dump" ] || fail "the dump $dump is missing or empty"
pg_restore --list "$dump" >/dev/null || fail "pg_restore cannot read $dump"
echo "restore drill: dump of $(wc -c <"$dump") bytes"

# 2. A fresh database, restored.
psql -X -q -v ON_ERROR_STOP=1 -d "$scratch_server" -c "CREATE DATABASE $scratch_name" >/dev/null || fail "cannot create $scratch_name"
created=true
echo "restore drill: restoring into $scratch_name"
pg_restore --no-owner --exit-on-error --dbname="$scratch_url" "$dump" || fail "pg_restore failed"

# 3. The current code on it: migrations (a dump from an older release), then the doctor.
DATABASE_URL=$scratch_url "${cdctl[@]}" migrate || fail "cdctl migrate failed"
set +e
DATABASE_URL=$scratch_url "${cdctl[@]}" doctor
doctor=$?
set -e
[ "$doctor" -eq 0 ] || fail "cdctl doctor exited $doctor"

# 4. What came back.
echo "restore drill: rows restored"
psql -X -q -v ON_ERROR_STOP=1 -d "$scratch_url" -At -F ' ' -c "
  SELECT 'applications', count(*) FROM applications WHERE deleted_at IS NULL
  UNION ALL SELECT 'domains', count(*) FROM domains WHERE deleted_at IS NULL
  UNION ALL SELECT 'certificates', count(*) FROM certificates
  UNION ALL SELECT 'webhook_subscriptions', count(*) FROM webhook_subscriptions" | sed 's/^/  /' || fail "cannot count the restored rows"
echo "restore drill: passed"
