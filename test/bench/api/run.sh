#!/usr/bin/env bash
# Benchmark of POST /v1/domains (make bench-api). In one run, on one fresh
# PostgreSQL database:
#   1. the API service alone (split mode: its outbox relayed to RabbitMQ, in a
#      throwaway vhost, so no checker work shares its CPU) pinned to CPU 0, loaded by wrk
#      pinned to CPU 1: 32 connections, every request a new hostname;
#   2. the reference: pgbench pinned to CPU 1 sending the same statements as
#      the API's create transaction, 32 clients, same duration.
# Prints both figures, their ratio and PASS/FAIL against the targets, and
# records the run in docs/benchmarks-history.md. Exits non-zero only when the bench
# itself broke (start-up failure, errors, answers other than 201).
# A request unanswered after 10 s (wrk --timeout) counts as an error.
# Knobs: BENCH_WARMUP / BENCH_DURATION (seconds, default 3 / 15),
# BENCH_DOCS=0 to record nothing, BENCH_DOCS_FILE to record
# elsewhere, BENCH_PROFILE=<dir> to write a CPU profile of the API process there.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
HERE=$ROOT/test/bench/api
WARMUP=${BENCH_WARMUP:-3}
DURATION=${BENCH_DURATION:-15}
CONNECTIONS=32
THREADS=2
TARGET_RATIO=0.3
TARGET_P99_MS=50
export PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres

BENCH_NAME=bench-api
# shellcheck source=../lib/bench-lib.sh
. "$ROOT/test/bench/lib/bench-lib.sh"

install_missing wrk:wrk pgbench:postgresql-contrib curl:curl taskset:util-linux
need_cpus 2 "for the pinning (API on CPU 0, load on CPU 1)"
need_built services/api/dist/main.js services/cli/dist/main.js

load_avg=$(loadavg)  # other work on the machine skews absolute figures
work=$(mktemp -d /tmp/bench-api.XXXXXX)
db=bench_api_$(date +%s)_$RANDOM
svc_pid=
stop_service() { [ -z "$svc_pid" ] || stop_pid "$svc_pid"; svc_pid=; }
cleanup() {
  stop_service
  dropdb --if-exists --force "$db" >/dev/null 2>&1 || true
  rabbitmqctl delete_vhost "$vhost" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
commits() { psql -d "$db" -Atc "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"; }
# Percentile (1-100) of a file of sorted numbers, nearest rank.
percentile() { awk -v p="$2" '{v[NR]=$1} END {i=int((p*NR+99)/100); if(i<1)i=1; print v[i]}' "$1"; }

# --- 1. database and service ------------------------------------------------
log "database $db"
createdb "$db"
vhost="$db"
rabbitmqctl add_vhost "$vhost" >/dev/null
rabbitmqctl set_permissions -p "$vhost" guest '.*' '.*' '.*' >/dev/null
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db"
node services/cli/dist/main.js migrate >/dev/null
api_port=$(free_port)
metrics_port=$(free_port)
operator_token=$(random_base64 hex)
(
  cd "$work"
  exec env AMQP_URL="amqp://guest:guest@127.0.0.1:5672/$vhost" API_PORT="$api_port" METRICS_PORT="$metrics_port" LOG_LEVEL=warn \
    OPERATOR_TOKEN="$operator_token" \
    DATA_ENCRYPTION_KEY="$(random_base64)" ASSERTION_DEPLOYMENT_KEY="$(random_base64 base64url)" \
    taskset -c 0 node ${BENCH_PROFILE:+--cpu-prof --cpu-prof-dir="$BENCH_PROFILE"} "$ROOT/services/api/dist/main.js"
) >"$work/service.log" 2>&1 &
svc_pid=$!
wait_ready "$svc_pid" "$metrics_port" "$work/service.log"
api="http://127.0.0.1:$api_port"

# --- 2. application and credential -------------------------------------------
operator() {
  curl -fsS -X POST -H "Authorization: Bearer $operator_token" -H 'Content-Type: application/json' "$api$1" -d "$2"
}
operator /operator/v1/applications \
  '{"slug":"bench","name":"Bench","limits":{"live_domains":100000000,"api_requests_per_minute":100000000}}' >/dev/null \
  || die "creating the application failed"
secret=$(operator /operator/v1/applications/bench/credentials '{}' | json_field secret) || die "issuing the credential failed"
app_id=$(psql -d "$db" -Atc "SELECT id FROM applications WHERE slug = 'bench' AND deleted_at IS NULL")
key_hash=$(printf '%s' "$secret" | sha256sum | cut -d' ' -f1)

# --- 3. API load ----------------------------------------------------------------
run_wrk() { # tag seconds
  BENCH_TOKEN=$secret taskset -c 1 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2s" --timeout 10s --latency \
    -s "$HERE/create-domains.lua" "$api" -- "$1" >"$work/wrk-$1.out" 2>&1 || { cat "$work/wrk-$1.out" >&2; die "wrk failed"; }
  local line; line=$(grep '^BENCH requests=' "$work/wrk-$1.out") || { cat "$work/wrk-$1.out" >&2; die "no wrk summary"; }
  # shellcheck disable=SC2086
  local $(echo "${line#BENCH }")
  if [ "$non201" -ne 0 ] || [ "$socket_errors" -ne 0 ]; then
    cat "$work/wrk-$1.out" >&2; tail -20 "$work/service.log" >&2
    die "$non201 answers other than 201 and $socket_errors socket errors in the $1 run"
  fi
  echo "$line"
}
log "API warm-up ${WARMUP}s"
run_wrk w "$WARMUP" >/dev/null
log "API measured ${DURATION}s: wrk -t$THREADS -c$CONNECTIONS, service on CPU 0, wrk on CPU 1"
ticks0=$(cpu_ticks "$svc_pid"); commits0=$(commits)
line=$(run_wrk m "$DURATION")
ticks1=$(cpu_ticks "$svc_pid"); commits1=$(commits)
eval "$(echo "${line#BENCH }" | tr ' ' '\n' | sed 's/^/api_/')"
api_rps=$(awk -v r="$api_requests" -v d="$api_duration_us" 'BEGIN {printf "%.1f", r / (d / 1e6)}')
api_p50=$(awk -v v="$api_p50_us" 'BEGIN {printf "%.1f", v / 1000}')
api_p99=$(awk -v v="$api_p99_us" 'BEGIN {printf "%.1f", v / 1000}')
api_cpu=$(awk -v t=$((ticks1 - ticks0)) -v hz="$(getconf CLK_TCK)" -v n="$api_requests" 'BEGIN {printf "%.2f", t / hz * 1000 / n}')
api_commits=$(awk -v c=$((commits1 - commits0)) -v n="$api_requests" 'BEGIN {printf "%.1f", c / n}')
stop_service

# --- 4. pgbench reference on the same database, from empty tables again ------
psql -d "$db" -qc "TRUNCATE domain_checks, domains, outbox CASCADE; UPDATE applications SET live_domains = 0; DELETE FROM rate_counters" >/dev/null
run_pgbench() { # seconds [extra args]
  local secs=$1; shift
  taskset -c 1 pgbench -n -M prepared -c "$CONNECTIONS" -j "$THREADS" -T "$secs" \
    -f "$HERE/create-domain.pgbench.sql" -D appid="$app_id" -D keyhash="$key_hash" -D throttlekey=auth-fail:v1:127.0.0.1 "$@" "$db" 2>&1
}
log "pgbench warm-up ${WARMUP}s"
run_pgbench "$WARMUP" >"$work/pgbench-w.out" || { cat "$work/pgbench-w.out" >&2; die "pgbench failed"; }
log "pgbench measured ${DURATION}s: -c$CONNECTIONS -j$THREADS on CPU 1"
run_pgbench "$DURATION" --log --log-prefix="$work/pgb" >"$work/pgbench-m.out" || { cat "$work/pgbench-m.out" >&2; die "pgbench failed"; }
failed=$(awk '/number of failed transactions/ {print $5}' "$work/pgbench-m.out")
[ "${failed:-0}" = 0 ] || { cat "$work/pgbench-m.out" >&2; die "pgbench had $failed failed transactions"; }
pg_tps=$(awk '/^tps = / {printf "%.1f", $3}' "$work/pgbench-m.out")
pg_avg=$(awk '/^latency average = / {printf "%.1f", $4}' "$work/pgbench-m.out")
cat "$work"/pgb.* | awk '{print $3 / 1000}' | sort -n >"$work/pg-latency-ms"
pg_p50=$(percentile "$work/pg-latency-ms" 50 | awk '{printf "%.1f", $1}')
pg_p99=$(percentile "$work/pg-latency-ms" 99 | awk '{printf "%.1f", $1}')

# --- 5. report ----------------------------------------------------------------
ratio=$(awk -v a="$api_rps" -v p="$pg_tps" 'BEGIN {printf "%.2f", a / p}')
ratio_ok=$(awk -v r="$ratio" -v t="$TARGET_RATIO" 'BEGIN {print (r >= t) ? "PASS" : "FAIL"}')
p99_ok=$(awk -v v="$api_p99" -v t="$TARGET_P99_MS" 'BEGIN {print (v < t) ? "PASS" : "FAIL"}')
date_utc=$(run_date)
cpus=$(nproc)
node_v=$(node --version)
pg_v=$(psql -d "$db" -Atc "SHOW server_version" | awk '{print $1}')
commit=$(bench_commit)

cat <<EOF

POST /v1/domains benchmark ($date_utc, $cpus CPUs, node $node_v, PostgreSQL $pg_v, commit $commit, load average $load_avg at start)
  API      $api_rps creates/s   p50 $api_p50 ms   p99 $api_p99 ms   ($api_requests creates in ${DURATION}s, $CONNECTIONS connections)
           service CPU $api_cpu ms per create, $api_commits PostgreSQL commits per create
  pgbench  $pg_tps tps          p50 $pg_p50 ms   p99 $pg_p99 ms   (latency average $pg_avg ms, $CONNECTIONS clients)
  ratio API/pgbench  $ratio
  target ratio >= $TARGET_RATIO        $ratio_ok
  target API p99 < $TARGET_P99_MS ms     $p99_ok
EOF

bench_records || exit 0
row="| $date_utc | $commit | $cpus | $load_avg | $node_v | $pg_v | $api_rps | $api_p50 | $api_p99 | $pg_tps | $pg_p50 | $pg_p99 | **$ratio** | $api_cpu | $api_commits |"
begin='<!-- bench-api:runs -->'
end='<!-- /bench-api:runs -->'
md_add_section "$BENCH_DOCS_FILE" "$begin" "
## POST /v1/domains: \`make bench-api\`

$begin
| date (UTC) | commit | CPUs | load avg | node | PostgreSQL | API creates/s | API p50 ms | API p99 ms | pgbench tps | pgbench p50 ms | pgbench p99 ms | ratio API/pgbench | API CPU ms/create | PG commits/create |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
$end"
md_append_row "$BENCH_DOCS_FILE" "$begin" "$end" "$row" 20  # the newest 20 runs
log "recorded in $BENCH_DOCS_FILE"
