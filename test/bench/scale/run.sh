#!/usr/bin/env bash
# Scale benchmark (make bench-scale): how each operation's cost grows from
# 1,000 domains in the database to about 1,100,000, in one run, on one fresh
# PostgreSQL database migrated by `cdctl migrate`, in a PostgreSQL cluster of the
# bench's own (not the machine's), set up as a deployment sized for this data
# would be (about 16 GB): shared_buffers 4GB (a quarter of the 24 GiB these
# machines have), effective_cache_size 12GB, max_wal_size 4GB, wal_compression
# on, autovacuum on; everything else as initdb leaves it (fsync on). initdb in a
# temporary directory, a free loopback port; stopped and removed at the end.
#   1. seed.js apps: BENCH_SCALE_APPS applications and one large one through the
#      operator API (credentials included), their origin, webhook subscription
#      and traffic by SQL; then `small`: the measured application's 1,000
#      domains with checks, their last 10 check runs, certificates and history;
#      VACUUM ANALYZE.
#   2. measure.js: every operation BENCH_SCALE_SAMPLES times, one at a time
#      (p50/p99, CPU per request of the API and of its database sessions);
#      the operator backup (GET /operator/v1/backup, duration and size).
#   3. seed.js full: every other application's domains (the large one's
#      BENCH_SCALE_LARGE_DOMAINS) with the same shapes; VACUUM ANALYZE (the
#      cluster's autovacuum would get to the new rows in its own time; the
#      measurement starts from vacuumed, analyzed tables every run).
#   4. measure.js again, with the large application's deep pages; edge-start.js:
#      an edge process started three times on the full database (time to its
#      first request served, heap and RSS); the backup
#      again; explain.js writes EXPLAIN (ANALYZE, BUFFERS) of the statements
#      behind the operations (before and after the changes of migration
#      1760000000900); `cdctl migrate` on the full database, with nothing to
#      apply and applying that migration again; one checker
#      (test/bench/checker/bench.js) checking 5,000 new domains, in a fresh
#      database of the cluster and then in the full one.
#   5. report.js: one table with the ratio full ÷ small per operation and the
#      targets, bytes per ready domain (by table), the kept check runs' bytes
#      per domain and per run, seed, migrate and backup figures.
# Two API processes share the database, pinned to CPU 0: one as deployed by
# default, one with DEPLOYMENT_DOMAIN_LIMIT set (a create then counts the
# deployment's live domains). The measuring client runs on CPU 1. Their
# housekeeping is put off (HOUSEKEEPING_INTERVAL=20d): the seeded month of
# outbox rows is past OUTBOX_RETENTION (7 days), and a first run pruning it
# would run beside the measurements (make bench-housekeeping measures that).
# Knobs: BENCH_SCALE_APPS (default 1000), BENCH_SCALE_DOMAINS (per application,
# default 1000), BENCH_SCALE_LARGE_DOMAINS (default 100000),
# BENCH_SCALE_HISTORY_EVENTS (outbox rows per domain, default 10),
# BENCH_SCALE_SAMPLES (default 200), BENCH_SCALE_DB (default cds_bench_scale),
# BENCH_SCALE_SHARED_BUFFERS (default 4GB), BENCH_SCALE_EFFECTIVE_CACHE_SIZE
# (default 12GB), PG_BIN_DIR (default /usr/lib/postgresql/15/bin),
# BENCH_SCALE_KEEP_DB=1 to keep the cluster running with the database (its
# directory and port are logged), BENCH_DOCS=0 to record
# nothing, BENCH_DOCS_FILE (default docs/benchmarks-history.md), BENCH_COMMIT, BENCH_KEEP=<dir> to
# keep the measurements, EXPLAIN output and service logs.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
HERE=$ROOT/test/bench/scale

BENCH_NAME=bench-scale
BENCH_LOG_FD=2
# shellcheck source=../lib/bench-lib.sh
. "$ROOT/test/bench/lib/bench-lib.sh"

need_tools curl openssl taskset rabbitmqctl
install_missing pebble-challtestsrv:pebble
need_cpus 2 "for the pinning (API on CPU 0, client on CPU 1)"
need_built services/api/dist/main.js services/cli/dist/main.js

work=$(mktemp -d /tmp/bench-scale.XXXXXX)
pg_dir=$(mktemp -d /tmp/bench-scale-pg.XXXXXX)
pg_settings=(
  "shared_buffers = ${BENCH_SCALE_SHARED_BUFFERS:-4GB}"
  "effective_cache_size = ${BENCH_SCALE_EFFECTIVE_CACHE_SIZE:-12GB}"
  "max_wal_size = 4GB"
  "wal_compression = on"
  "autovacuum = on"
)
db=${BENCH_SCALE_DB:-cds_bench_scale}
vhost=bench_scale_$(date +%s)_$RANDOM
api_pid=
limited_pid=
cleanup() {
  [ -z "$api_pid" ] || stop_pid "$api_pid"
  [ -z "$limited_pid" ] || stop_pid "$limited_pid"
  if [ "${BENCH_SCALE_KEEP_DB:-0}" = 1 ]; then
    log "cluster kept: $pg_dir (port ${PGPORT:-?}); stop it with: PG_BIN_DIR=${PG_BIN_DIR:-/usr/lib/postgresql/15/bin} pg_ctl -D $pg_dir/data stop (as postgres), then rm -rf $pg_dir"
  else
    pg_cluster_stop "$pg_dir"
    [ ! -f "$pg_dir/server.log" ] || cp "$pg_dir/server.log" "$work/postgresql.log"
    rm -rf "$pg_dir"
  fi
  rabbitmqctl delete_vhost "$vhost" >/dev/null 2>&1 || true
  if [ -n "${BENCH_KEEP:-}" ]; then mkdir -p "$BENCH_KEEP" && cp -r "$work"/. "$BENCH_KEEP"/; fi
  rm -rf "$work"
}
trap cleanup EXIT
seconds_since() { awk -v a="$1" -v b="$(now_ms)" 'BEGIN {printf "%.1f", (b - a) / 1000}'; }

# --- cluster, database, services -----------------------------------------------------
pg_port=$(free_port)
pg_cluster_start "$pg_dir" "$pg_port" "${pg_settings[@]}"
export PGHOST=127.0.0.1 PGPORT=$pg_port PGUSER=postgres
pg_conf=$(psql -d postgres -Atc "SELECT string_agg(name || ' ' || current_setting(name), ', ' ORDER BY name) FROM pg_settings
  WHERE name IN ('shared_buffers', 'effective_cache_size', 'max_wal_size', 'wal_compression', 'autovacuum', 'fsync', 'synchronous_commit', 'server_version')")
log "PostgreSQL cluster of the bench's own in $pg_dir on port $pg_port: $pg_conf"
log "database $db, RabbitMQ vhost $vhost"
createdb "$db"
rabbitmqctl add_vhost "$vhost" >/dev/null
rabbitmqctl set_permissions -p "$vhost" guest '.*' '.*' '.*' >/dev/null
export DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/$db"
node services/cli/dist/main.js migrate >/dev/null
DATA_ENCRYPTION_KEY=$(random_base64)
export DATA_ENCRYPTION_KEY
operator_token=$(random_base64 hex)
assertion_key=$(random_base64 base64url)

start_api() { # name extra-env... ; prints "pid api-port"
  local name=$1 port metrics
  shift
  port=$(free_port)
  metrics=$(free_port)
  (
    cd "$work"
    exec env AMQP_URL="amqp://guest:guest@127.0.0.1:5672/$vhost" API_PORT="$port" METRICS_PORT="$metrics" LOG_LEVEL=warn \
      OPERATOR_TOKEN="$operator_token" OPERATOR_BACKUP=true ASSERTION_DEPLOYMENT_KEY="$assertion_key" HOUSEKEEPING_INTERVAL=20d "$@" \
      taskset -c 0 node "$ROOT/services/api/dist/main.js"
  ) >"$work/$name.log" 2>&1 &
  local pid=$!
  wait_ready "$pid" "$metrics" "$work/$name.log"
  echo "$pid $port"
}
# The lease row says a housekeeping run just ended: the start-up tick finds none due.
BENCH_DATABASE_URL=$DATABASE_URL node "$ROOT/test/bench/housekeeping/lease.js" defer
read -r api_pid api_port <<<"$(start_api api)"
read -r limited_pid limited_port <<<"$(start_api api-limited DEPLOYMENT_DOMAIN_LIMIT=100000000)"
export BENCH_API="http://127.0.0.1:$api_port" BENCH_API_LIMITED="http://127.0.0.1:$limited_port"
export BENCH_OPERATOR_TOKEN=$operator_token BENCH_API_PIDS="$api_pid,$limited_pid" BENCH_SCALE_APPS_FILE="$work/apps.json"

# Figures of the database: size, bytes per table (with indexes and TOAST), ready domains;
# the kept check runs (domain_check_runs, DECISIONS §15): rows, domains with runs, the
# table's bytes (indexes and TOAST included) and its indexes', the average row and
# `checks` text, and the runs that saw every check pass.
db_sizes() { # file
  psql -d "$db" -Atc "SELECT json_build_object(
      'database', pg_database_size(current_database()),
      'ready', (SELECT count(*) FROM domains WHERE status = 'ready' AND deleted_at IS NULL),
      'domains', (SELECT count(*) FROM domains),
      'tables', (SELECT json_object_agg(relname, json_build_object('bytes', pg_total_relation_size(oid), 'indexes', pg_indexes_size(oid), 'rows', reltuples::bigint))
                 FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace),
      'runs', (SELECT json_build_object('rows', count(*), 'domains', count(DISTINCT domain_id),
                 'bytes', pg_total_relation_size('domain_check_runs'), 'indexes', pg_indexes_size('domain_check_runs'),
                 'row_bytes', avg(pg_column_size(r.*)), 'checks_bytes', avg(octet_length(checks)),
                 'all_passing', count(*) FILTER (WHERE checks !~ '(failing|pending)'),
                 'all_passing_checks_bytes', avg(octet_length(checks)) FILTER (WHERE checks !~ '(failing|pending)'))
               FROM domain_check_runs r))" >"$1"
}
backup() { # file: duration and size of the operator's backup, as JSON
  local out
  out=$(curl -fsS -o "$work/backup.dump" -w '%{time_total} %{size_download}' -H "Authorization: Bearer $operator_token" "$BENCH_API/operator/v1/backup") || die "the backup failed"
  rm -f "$work/backup.dump"
  echo "$out" | awk '{printf "{\"seconds\": %s, \"bytes\": %s}\n", $1, $2}' >"$1"
}

# --- 1. small -----------------------------------------------------------------------
began=$(now_ms)
node "$HERE/seed.js" apps >"$work/apps.json"
node "$HERE/seed.js" small
log "applications and the measured application's domains seeded in $(seconds_since "$began") s"
db_sizes "$work/sizes-small.json"
psql -d "$db" -qc CHECKPOINT

# --- 2. measure at 1,000 domains ----------------------------------------------------------
load_small=$(loadavg)
log "measuring with $(psql -d "$db" -Atc 'SELECT count(*) FROM domains') domains (load average $load_small)"
taskset -c 1 node "$HERE/measure.js" small >"$work/small.json"
backup "$work/backup-small.json"

# --- 3. full ------------------------------------------------------------------------
began=$(now_ms)
node "$HERE/seed.js" full
seed_s=$(seconds_since "$began")
log "full seed, VACUUM ANALYZE included: $seed_s s"
db_sizes "$work/sizes-full.json"
psql -d "$db" -qc CHECKPOINT

# --- 4. measure at full size --------------------------------------------------------
load_full=$(loadavg)
log "measuring with $(psql -d "$db" -Atc 'SELECT count(*) FROM domains') domains (load average $load_full)"
taskset -c 1 node "$HERE/measure.js" full --large >"$work/full.json"
load_end=$(loadavg)
# An edge started cold on the full database, three times (edge-start.js).
BENCH_SCALE_VHOST=$vhost taskset -c 1 node "$HERE/edge-start.js" >"$work/edge-start.json"
backup "$work/backup-full.json"
log "backup of the full database: $(cat "$work/backup-full.json")"
node "$HERE/explain.js" >"$work/explain.txt"
[ -z "${BENCH_KEEP:-}" ] || log "EXPLAIN output kept in $BENCH_KEEP/explain.txt"
# cdctl migrate on the full database: with nothing to apply, then applying
# 1760000000900 again (undone by hand first: its index built over every domain).
began=$(now_ms)
node services/cli/dist/main.js migrate >"$work/migrate.log"
migrate_noop_s=$(seconds_since "$began")
last=DomainLivePages1760000000900
psql -d "$db" -qc "DROP INDEX ix_domains_application_live; DELETE FROM migrations WHERE name = '$last'"
began=$(now_ms)
node services/cli/dist/main.js migrate >"$work/migrate.log"
migrate_s=$(seconds_since "$began")
log "cdctl migrate on the full database: $migrate_noop_s s with nothing to apply, $migrate_s s applying $last"

# --- 4b. one checker at both sizes ------------------------------------------------------
# test/bench/checker/bench.js: 5,000 pending domains with their records in
# challtestsrv, checked by one checker until all pass ownership and routing;
# first in a fresh database of this cluster, then added to the full database
# (where every other domain due within the hour is put off, so that the
# checker's work is the same 5,000).
checker_at() { # out-file [database]
  BENCH_ADMIN_URL="postgres://postgres@127.0.0.1:$pg_port/postgres" BENCH_DATABASE=${2:-} \
    node --expose-gc "$ROOT/test/bench/checker/bench.js" 2>>"$work/checker.log" | tail -n 1 >"$1"
}
checker_at "$work/checker-small.json"
checker_at "$work/checker-full.json" "$db"
log "one checker, 5,000 domains, in a fresh database / in the full one: $(cat "$work/checker-small.json") / $(cat "$work/checker-full.json")"

# --- 5. report ----------------------------------------------------------------------
export BENCH_SCALE_WORK=$work BENCH_SCALE_SEED_S=$seed_s BENCH_SCALE_MIGRATE_S=$migrate_s BENCH_SCALE_MIGRATE_NOOP_S=$migrate_noop_s BENCH_SCALE_LAST_MIGRATION=$last
export BENCH_SCALE_LOAD="$load_small / $load_full / $load_end" BENCH_SCALE_COMMIT BENCH_SCALE_PG="$pg_conf"
BENCH_SCALE_COMMIT=$(bench_commit)
node "$HERE/report.js" >"$work/report.md"
cat "$work/report.md"
bench_records || exit 0
# Every run's report is kept, the newest last.
md_add_section "$BENCH_DOCS_FILE" '<!-- bench-scale:runs -->' '
## Scale: `make bench-scale`

<!-- bench-scale:runs -->
<!-- /bench-scale:runs -->'
md_insert_before "$BENCH_DOCS_FILE" '<!-- /bench-scale:runs -->' "$(cat "$work/report.md")
"
log "recorded in $BENCH_DOCS_FILE"
