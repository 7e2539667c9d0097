#!/usr/bin/env bash
# Benchmark of the edge's database reads (make bench-edge-names; issue 18):
# the edge (services/edge-proxy/dist/main.js, CPU 0) over PostgreSQL and
# RabbitMQ, one ready domain bench.edge.test served by an nginx origin (CPU 1),
# and test/bench/edge/names-load.js (CPU 1) as the load generator.
#   (a) random-name flood: wrk (CPU 1, HTTPS keep-alive, 16 connections, each
#       pausing 10 ms after an answer: paced.lua, so the edge is not already at
#       100% CPU) on the ready domain for BENCH_FLOOD_SECONDS (30) alone, then again beside
#       300 new TLS handshakes a second with random SNI names and 2,000
#       requests a second with random Host names on the plain-HTTP port:
#       the edge's database reads a second during the flood (target <= 20) and
#       the ready domain's p99 with and without the flood (target <= 2x);
#   (b) hot hostnames: BENCH_HOT_NAMES (10,000) ready hostnames each requested
#       about once a second over plain HTTP for BENCH_HOT_SECONDS (60): the
#       edge's database reads a second (target <= 10) and its RSS.
# Reads are the edge's own count (cds_edge_database_queries_total, by
# purpose); PostgreSQL's committed transactions in the same window are shown
# beside them (they include the limiter's and the traffic counter's writes).
# Prints the figures and, unless BENCH_DOCS=0, replaces the section between
# the bench-edge-names markers in docs/benchmarks-history.md (BENCH_DOCS_FILE: another
# file). EDGE_NODE_ARGS: the
# edge's node flags (default: as the Helm chart starts the edge, set in bench-lib.sh; add
# --cpu-prof, with BENCH_KEEP=1 to find the profile in the work directory).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
HERE=$ROOT/test/bench/edge
FLOOD_SECONDS=${BENCH_FLOOD_SECONDS:-30}
HOT_SECONDS=${BENCH_HOT_SECONDS:-60}
HOT_NAMES=${BENCH_HOT_NAMES:-10000}
HANDSHAKES_PER_SECOND=300
HOSTS_PER_SECOND=2000
HOSTNAME_UNDER_TEST=bench.edge.test
EDGE_MAIN=services/edge-proxy/dist/main.js
export PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres

BENCH_NAME=bench-edge-names
BENCH_LOG_FD=2
# shellcheck source=../lib/bench-lib.sh
. "$ROOT/test/bench/lib/bench-lib.sh"

need_tools nginx wrk curl openssl taskset psql createdb rabbitmqctl
need_built "$EDGE_MAIN" services/cli/dist/main.js
need_cpus 2 "(edge on CPU 0, load and origin on CPU 1)"

load_avg=$(loadavg 3)
work=$(mktemp -d /tmp/bench-edge-names.XXXXXX)
chmod 755 "$work"
db=cds_bench_names_$(date +%s)_$RANDOM
vhost=$db
edge_pid=
origin_pid=
cleanup() {
  local pid
  for pid in $edge_pid $origin_pid; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $edge_pid $origin_pid; do wait "$pid" 2>/dev/null || true; done
  dropdb --if-exists --force "$db" >/dev/null 2>&1 || true
  rabbitmqctl delete_vhost "$vhost" >/dev/null 2>&1 || true
  if [ -n "${BENCH_KEEP:-}" ]; then log "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
# Share of one CPU the edge used between two cpu_ticks readings over `seconds` (100 ticks a second).
cpu_share() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN {printf "%.0f%%", (b - a) / s}'; }
rss_mib() { awk '/^VmRSS:/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
pg_commits() { psql -d "$db" -Atc "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"; }
# The edge's reads so far: "total route certificate key challenge feed names".
edge_reads() {
  curl -s "http://127.0.0.1:$metrics_port/metrics" | awk '
    /^cds_edge_database_queries_total\{/ { match($0, /purpose="[a-z]+"/); p = substr($0, RSTART + 9, RLENGTH - 10); v[p] = $NF; t += $NF }
    END { printf "%d %d %d %d %d %d %d\n", t, v["route"], v["certificate"], v["key"], v["challenge"], v["feed"], v["names"] }'
}
# The edge's event-loop delay p99 (ms) since the previous scrape (prom-client resets it at each one).
loop_p99() { curl -s "http://127.0.0.1:$metrics_port/metrics" | awk '/^nodejs_eventloop_lag_p99_seconds / {printf "%.1f", $2 * 1000}'; }
per_second() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN {printf "%.1f", (b - a) / s}'; }

# --- certificate, origin -------------------------------------------------------
mkdir -p "$work/tls" "$work/bodies" "$work/origin-tmp"
(
  cd "$work/tls"
  curve=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 "${curve[@]}" -keyout ca.key -out ca.pem -days 2 -subj '/CN=bench-edge CA' 2>/dev/null
  openssl req "${curve[@]}" -keyout leaf.key -out leaf.csr -subj "/CN=$HOSTNAME_UNDER_TEST" 2>/dev/null
  printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "$HOSTNAME_UNDER_TEST" >leaf.ext
  openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 2 -extfile leaf.ext 2>/dev/null
) || die "openssl could not make the certificate"
head -c 1024 /dev/urandom >"$work/bodies/1k"
head -c 65536 /dev/urandom >"$work/bodies/64k"
chmod 644 "$work/bodies/"*
origin_port=$(free_port)
sed -e "s|@WORK@|$work|g" -e "s|@ORIGIN_PORT@|$origin_port|g" "$HERE/origin.nginx.conf" >"$work/origin.conf"
taskset -c 1 nginx -e "$work/origin.error.log" -c "$work/origin.conf" >"$work/origin.log" 2>&1 &
origin_pid=$!
for _ in $(seq 1 50); do
  [ "$(curl -s -o /dev/null -w '%{size_download}' "http://127.0.0.1:$origin_port/1k" || true)" = 1024 ] && break
  sleep 0.1
done

# --- database, hostnames, edge ----------------------------------------------------
createdb "$db"
rabbitmqctl add_vhost "$vhost" >/dev/null
rabbitmqctl set_permissions -p "$vhost" guest '.*' '.*' '.*' >/dev/null
database_url="postgres://postgres@127.0.0.1:5432/$db"
data_key=$(random_base64)
DATABASE_URL=$database_url node services/cli/dist/main.js migrate >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log" >&2; die "migrate"; }
seeded=$(BENCH_DATABASE_URL=$database_url DATA_ENCRYPTION_KEY=$data_key BENCH_HOSTNAME=$HOSTNAME_UNDER_TEST \
  BENCH_ORIGIN_URL="http://127.0.0.1:$origin_port" BENCH_TLS_DIR="$work/tls" node "$HERE/seed.js") || die "seed"
app_id=$(node -e 'console.log(JSON.parse(process.argv[1]).application_id)' "$seeded")
psql -q -d "$db" -c "INSERT INTO domains (id, application_id, hostname, reference, status, challenge_token, metadata, created_at, updated_at, deleted_at, next_check_at)
  SELECT gen_random_uuid(), '$app_id', 'h' || i || '.hot.bench.test', 'hot', 'ready', md5(i::text), '{}', now(), now(), NULL, now() + interval '1 day'
  FROM generate_series(1, $HOT_NAMES) AS i"
seq 1 "$HOT_NAMES" | sed 's/.*/h&.hot.bench.test/' >"$work/hot-names.txt"
log "database $db: bench.edge.test and $HOT_NAMES hot hostnames"

port=$(free_port) http_port=$(free_port) metrics_port=$(free_port)
(
  cd "$work"
  exec env DATABASE_URL="$database_url" AMQP_URL="amqp://guest:guest@127.0.0.1:5672/$vhost" \
    EDGE_HTTPS_PORT="$port" EDGE_HTTP_PORT="$http_port" METRICS_PORT="$metrics_port" BIND_ADDRESS=127.0.0.1 \
    DATA_ENCRYPTION_KEY="$data_key" \
    ASSERTION_DEPLOYMENT_KEY="$(random_base64 base64url)" OPERATOR_TOKEN="$(random_base64 hex)" \
    LOG_LEVEL=warn taskset -c 0 node $EDGE_NODE_ARGS "$ROOT/$EDGE_MAIN"
) >"$work/edge.log" 2>&1 &
edge_pid=$!
wait_ready "$edge_pid" "$metrics_port" "$work/edge.log" 120
sleep 3  # the live hostnames loaded
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$work/tls/ca.pem" --resolve "$HOSTNAME_UNDER_TEST:$port:127.0.0.1" "https://$HOSTNAME_UNDER_TEST:$port/1k")
[ "$code" = 200 ] || die "the edge answers $code for https://$HOSTNAME_UNDER_TEST/1k"
log "edge on CPU 0 (https $port, http $http_port), load average before: $load_avg"

run_wrk() { # seconds out: p99 in ms
  taskset -c 1 wrk -t1 -c16 -d"$1s" --timeout 10s --latency -H "Host: $HOSTNAME_UNDER_TEST" -s "$HERE/paced.lua" \
    "https://$HOSTNAME_UNDER_TEST:$port/1k" >"$2" 2>&1 || { cat "$2" >&2; die "wrk"; }
  grep '^BENCH requests=' "$2" | sed -E 's/.*p99_us=([0-9]+).*/\1/' | awk '{printf "%.2f", $1 / 1000}'
}
rps_of() { grep '^BENCH requests=' "$1" | awk '{split($2, r, "="); split($3, d, "="); printf "%.0f", r[2] / (d[2] / 1e6)}'; }

# --- (a) random-name flood ----------------------------------------------------------
rss_start=$(rss_mib "$edge_pid")
run_wrk 3 "$work/wrk-warmup.out" >/dev/null
ticks0=$(cpu_ticks "$edge_pid"); t0=$(date +%s.%N); loop_p99 >/dev/null
p99_alone=$(run_wrk "$FLOOD_SECONDS" "$work/wrk-alone.out")
ticks1=$(cpu_ticks "$edge_pid"); t1=$(date +%s.%N); loop_alone=$(loop_p99)
cpu_alone=$(cpu_share "$ticks0" "$ticks1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')")
rps_alone=$(rps_of "$work/wrk-alone.out")
log "(a) without flood: $rps_alone req/s, p99 $p99_alone ms, edge CPU $cpu_alone, edge event-loop delay p99 $loop_alone ms"
reads0=($(edge_reads)); commits0=$(pg_commits); ticks0=$(cpu_ticks "$edge_pid"); t0=$(date +%s.%N); loop_p99 >/dev/null
taskset -c 1 node "$HERE/names-load.js" flood "$port" "$http_port" "$FLOOD_SECONDS" "$HANDSHAKES_PER_SECOND" "$HOSTS_PER_SECOND" >"$work/flood.out" 2>&1 &
flood_pid=$!
p99_flood=$(run_wrk "$FLOOD_SECONDS" "$work/wrk-flood.out")
flood_ticks=$(cpu_ticks "$flood_pid"); loop_flood=$(loop_p99)
wait "$flood_pid" || { cat "$work/flood.out" >&2; die "the flood"; }
t1=$(date +%s.%N); reads1=($(edge_reads)); commits1=$(pg_commits); ticks1=$(cpu_ticks "$edge_pid")
seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
cpu_flood=$(cpu_share "$ticks0" "$ticks1" "$seconds")
cpu_generator=$(cpu_share 0 "$flood_ticks" "$seconds")
rps_flood=$(rps_of "$work/wrk-flood.out")
flood_line=$(grep '^LOAD' "$work/flood.out")
flood_reads=$(per_second "${reads0[0]}" "${reads1[0]}" "$seconds")
flood_commits=$(per_second "$commits0" "$commits1" "$seconds")
flood_by="route $((reads1[1] - reads0[1])), certificate $((reads1[2] - reads0[2])), key $((reads1[3] - reads0[3])), challenge $((reads1[4] - reads0[4])), feed $((reads1[5] - reads0[5])), names $((reads1[6] - reads0[6]))"
ratio=$(awk -v a="$p99_alone" -v b="$p99_flood" 'BEGIN {printf "%.2f", b / a}')
log "(a) with flood: $rps_flood req/s, p99 $p99_flood ms (x$ratio), edge CPU $cpu_flood, edge event-loop delay p99 $loop_flood ms, flood generator CPU $cpu_generator (CPU 1, with wrk and the origin); edge reads $flood_reads/s ($flood_by in ${seconds} s); PostgreSQL commits $flood_commits/s; $flood_line"

# --- (b) hot hostnames -------------------------------------------------------------------
taskset -c 1 node "$HERE/names-load.js" hot "$http_port" 5 "$work/hot-names.txt" 1 >/dev/null 2>&1 || true  # every name once: cached
reads0=($(edge_reads)); commits0=$(pg_commits); ticks0=$(cpu_ticks "$edge_pid"); t0=$(date +%s.%N)
taskset -c 1 node "$HERE/names-load.js" hot "$http_port" "$HOT_SECONDS" "$work/hot-names.txt" 1 >"$work/hot.out" 2>&1 || { cat "$work/hot.out" >&2; die "the hot load"; }
t1=$(date +%s.%N); reads1=($(edge_reads)); commits1=$(pg_commits); ticks1=$(cpu_ticks "$edge_pid")
seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
cpu_hot=$(cpu_share "$ticks0" "$ticks1" "$seconds")
hot_line=$(grep '^LOAD' "$work/hot.out")
hot_reads=$(per_second "${reads0[0]}" "${reads1[0]}" "$seconds")
hot_commits=$(per_second "$commits0" "$commits1" "$seconds")
hot_by="route $((reads1[1] - reads0[1])), certificate $((reads1[2] - reads0[2])), feed $((reads1[5] - reads0[5])), names $((reads1[6] - reads0[6]))"
hot_rss=$(rss_mib "$edge_pid")
load_after=$(loadavg 3)
log "(b) hot: edge reads $hot_reads/s ($hot_by in ${seconds} s); PostgreSQL commits $hot_commits/s; edge RSS $hot_rss MiB (at start $rss_start), CPU $cpu_hot; $hot_line"

verdict() { awk -v v="$1" -v max="$2" 'BEGIN {print (v <= max) ? "PASS" : "FAIL"}'; }
table=$(cat <<TABLE
| Run | Figure | Value | Target |
|---|---|---|---|
| (a) flood, ${FLOOD_SECONDS} s | edge database reads per second | $flood_reads ($flood_by) | <= 20: $(verdict "$flood_reads" 20) |
| (a) flood | PostgreSQL commits per second (all clients) | $flood_commits | |
| (a) flood | ready domain p99 without / with the flood | $p99_alone ms / $p99_flood ms (x$ratio) | <= 2x: $(verdict "$ratio" 2) |
| (a) flood | ready domain req/s without / with the flood | $rps_alone / $rps_flood | |
| (a) flood | edge CPU (share of one core) without / with the flood | $cpu_alone / $cpu_flood | |
| (a) flood | edge event-loop delay p99 without / with the flood | $loop_alone ms / $loop_flood ms | |
| (a) flood | flood generator CPU (on CPU 1 with wrk and the origin) | $cpu_generator | |
| (a) flood | load sent | \`$flood_line\` | |
| (b) hot, $HOT_NAMES names, ${HOT_SECONDS} s | edge database reads per second | $hot_reads ($hot_by) | <= 10: $(verdict "$hot_reads" 10) |
| (b) hot | PostgreSQL commits per second (all clients) | $hot_commits | |
| (b) hot | edge RSS at start (names loaded, before any load) / after the run | $rss_start MiB / $hot_rss MiB | |
| (b) hot | edge CPU (share of one core) | $cpu_hot | |
| (b) hot | load sent | \`$hot_line\` | |
TABLE
)
echo "$table"
if bench_records; then
  md_replace_between "$BENCH_DOCS_FILE" '<!-- bench-edge-names:start -->' '<!-- bench-edge-names:end -->' \
    "$(printf 'Run on %s (commit %s), load average %s before and %s after; 2 CPUs.\n\n%s' "$(run_date)" "$(bench_commit)" "$load_avg" "$load_after" "$table")"
  log "$BENCH_DOCS_FILE updated"
fi
