#!/usr/bin/env bash
# Benchmark of the edge proxy (make bench-edge). In one run, against one origin
# (an nginx on loopback serving static 1 KiB and 64 KiB bodies, pinned to CPU 1)
# and with one throwaway certificate for bench.edge.test, four reverse proxies
# one after the other, each alone on CPU 0:
#   1. nginx (proxy_pass, upstream keep-alive, one worker);
#   2. Caddy (reverse_proxy, the certificate as files, no automatic HTTPS);
#   3. our edge in split mode (services/edge-proxy/dist/main.js) with every
#      feature on: routing from PostgreSQL, assertion, limits (set far above
#      the load, still checked), traffic counting;
#   4. http-proxy (the npm package) alone in one Node.js process
#      (test/bench/edge/http-proxy-server.js): the library the edge does not use.
# wrk (CPU 1) sends HTTPS keep-alive GETs over 64 connections, SNI and Host
# bench.edge.test, for each body size: a warm-up, then the measured run. Then,
# for nginx, Caddy and the edge (http-proxy speaks HTTP/1.1 only), h2load
# (CPU 1) does the same over HTTP/2: 64 connections of 10 concurrent streams,
# 1 KiB body; its latency percentiles come from its per-request log.
# Reported per proxy and body: req/s, p50/p99, the proxy's CPU time per request
# (/proc/<pid>/stat, its child processes included) and RSS after the run, with
# ratios against nginx and Caddy and the edge's against http-proxy; PASS/FAIL
# against the edge's targets (1 KiB over HTTP/1.1 and over HTTP/2: at least
# Caddy's req/s, a p99 no worse than Caddy's; 64 KiB over HTTP/1.1: a p99 no
# worse than Caddy's; CPU per 1 KiB request at most 2.5 times nginx's; RSS after
# each run at most 128 MiB). The table replaces the previous one in
# docs/benchmarks-history.md; a line per run with the targeted ratios is kept.
# Exits non-zero only when the bench itself broke (a proxy that does not start
# or answers with errors); an edge that is not built yet gets a row saying so.
# Knobs: BENCH_WARMUP / BENCH_DURATION (seconds, default 2 / 10),
# BENCH_DOCS=0 to record nothing, BENCH_DOCS_FILE to record elsewhere, BENCH_SERVERS / BENCH_BODIES / BENCH_H2_BODIES
# to run a subset (e.g. "caddy edge", "1k", "" for no HTTP/2 run), EDGE_NODE_ARGS for the node flags of the edge and of
# http-proxy (default: as the Helm chart and k8s/ start the edge, set in bench-lib.sh; add --cpu-prof),
# BENCH_KEEP=1 to keep the work directory (configs, logs) for a look afterwards.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
HERE=$ROOT/test/bench/edge
WARMUP=${BENCH_WARMUP:-2}
DURATION=${BENCH_DURATION:-10}
CONNECTIONS=64
THREADS=2
HOSTNAME_UNDER_TEST=bench.edge.test
MAX_CPU_RATIO_NGINX=2.5
MAX_RSS_MIB=128
EDGE_MAIN=services/edge-proxy/dist/main.js
read -r -a SERVERS <<<"${BENCH_SERVERS:-nginx caddy edge http-proxy}"
read -r -a BODIES <<<"${BENCH_BODIES:-1k 64k}"
read -r -a H2_BODIES <<<"${BENCH_H2_BODIES-1k}"
H2_STREAMS=10
export PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres

BENCH_NAME=bench-edge
BENCH_LOG_FD=2
# shellcheck source=../lib/bench-lib.sh
. "$ROOT/test/bench/lib/bench-lib.sh"

# --- tools ------------------------------------------------------------------
install_missing nginx:nginx caddy:caddy wrk:wrk h2load:nghttp2-client curl:curl openssl:openssl taskset:util-linux
node -e 'require.resolve("http-proxy")' 2>/dev/null || die "the npm package http-proxy is missing: npm install (it is a devDependency)"
need_cpus 2 "for the pinning (proxy on CPU 0, wrk and origin on CPU 1)"

load_avg=$(loadavg)  # other work on the machine skews absolute figures
work=$(mktemp -d /tmp/bench-edge.XXXXXX)
chmod 755 "$work"  # nginx workers run as nobody and read the bodies
db=
vhost=
server_pid=
origin_pid=
stop_tree() { # pid: TERM, then KILL what is left of it and its children
  local pid=$1 all _
  all=$(tree_pids "$pid")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  # shellcheck disable=SC2086
  kill -KILL $all 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
stop_server() { [ -z "$server_pid" ] || stop_tree "$server_pid"; server_pid=; }
cleanup() {
  stop_server
  [ -z "$origin_pid" ] || stop_tree "$origin_pid"
  [ -z "$db" ] || dropdb --if-exists --force "$db" >/dev/null 2>&1 || true
  [ -z "$vhost" ] || rabbitmqctl delete_vhost "$vhost" >/dev/null 2>&1 || true
  if [ -n "${BENCH_KEEP:-}" ]; then log "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tree_pids() { # pid and its descendants
  local pid=$1 child
  echo "$pid"
  for child in $(pgrep -P "$pid" || true); do tree_pids "$child"; done
}
cpu_ticks() { # utime + stime of the process tree (every thread included)
  local pid total=0 t
  for pid in $(tree_pids "$1"); do
    t=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13}') || continue
    total=$((total + ${t:-0}))
  done
  echo "$total"
}
rss_kib() { # VmRSS of the process tree
  local pid total=0 k
  for pid in $(tree_pids "$1"); do
    k=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || continue
    total=$((total + ${k:-0}))
  done
  echo "$total"
}
fill() { # template output: the @NAME@ placeholders of the proxy configs
  sed -e "s|@WORK@|$work|g" -e "s|@PORT@|${2:-}|g" -e "s|@ORIGIN_PORT@|$origin_port|g" \
    -e "s|@HOSTNAME@|$HOSTNAME_UNDER_TEST|g" "$1" >"$3"
}
fetch() { # port path: body size of an HTTPS GET through the proxy, certificate verified
  curl -sS --max-time 5 -o /dev/null -w '%{http_code} %{size_download}' --cacert "$work/tls/ca.pem" \
    --resolve "$HOSTNAME_UNDER_TEST:$1:127.0.0.1" "https://$HOSTNAME_UNDER_TEST:$1$2" 2>/dev/null || true
}
wait_serving() { # name pid port log: until /1k answers 200 with 1024 bytes
  local _ got
  for _ in $(seq 1 100); do
    kill -0 "$2" 2>/dev/null || { tail -20 "$4" >&2; return 1; }
    got=$(fetch "$3" /1k)
    [ "$got" = "200 1024" ] && return 0
    sleep 0.2
  done
  log "$1 answers '$got' instead of '200 1024'"; tail -20 "$4" >&2
  return 1
}

# --- certificate, bodies, origin --------------------------------------------
mkdir -p "$work/tls" "$work/bodies" "$work/origin-tmp" "$work/nginx-tmp" "$work/caddy"
(
  cd "$work/tls"
  curve=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 "${curve[@]}" -keyout ca.key -out ca.pem -days 2 -subj '/CN=bench-edge CA' 2>/dev/null
  openssl req "${curve[@]}" -keyout leaf.key -out leaf.csr -subj "/CN=$HOSTNAME_UNDER_TEST" 2>/dev/null
  printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "$HOSTNAME_UNDER_TEST" >leaf.ext
  openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 2 -extfile leaf.ext 2>/dev/null
  cat leaf.pem ca.pem >chain.pem
) || die "openssl could not make the certificate"
head -c 1024 /dev/urandom >"$work/bodies/1k"
head -c 65536 /dev/urandom >"$work/bodies/64k"
chmod 644 "$work/bodies/"*

origin_port=$(free_port)
fill "$HERE/origin.nginx.conf" "" "$work/origin.conf"
taskset -c 1 nginx -e "$work/origin.error.log" -c "$work/origin.conf" >"$work/origin.log" 2>&1 &
origin_pid=$!
for _ in $(seq 1 50); do
  [ "$(curl -s -o /dev/null -w '%{size_download}' "http://127.0.0.1:$origin_port/64k" || true)" = 65536 ] && break
  kill -0 "$origin_pid" 2>/dev/null || { cat "$work/origin.log" "$work/origin.error.log" >&2 || true; die "the origin nginx exited at start-up"; }
  sleep 0.1
done
[ "$(curl -s -o /dev/null -w '%{size_download}' "http://127.0.0.1:$origin_port/64k" || true)" = 65536 ] || die "the origin does not serve /64k"
log "origin nginx on 127.0.0.1:$origin_port (CPU 1)"

# --- the proxies --------------------------------------------------------------
start_nginx() {
  local port; port=$(free_port)
  fill "$HERE/proxy.nginx.conf" "$port" "$work/proxy.nginx.conf"
  taskset -c 0 nginx -e "$work/nginx.error.log" -c "$work/proxy.nginx.conf" >"$work/nginx.log" 2>&1 &
  server_pid=$! server_port=$port server_log=$work/nginx.error.log
}
start_caddy() {
  local port; port=$(free_port)
  fill "$HERE/Caddyfile" "$port" "$work/Caddyfile"
  HOME=$work/caddy XDG_DATA_HOME=$work/caddy/data XDG_CONFIG_HOME=$work/caddy/config \
    taskset -c 0 caddy run --config "$work/Caddyfile" --adapter caddyfile >"$work/caddy.log" 2>&1 &
  server_pid=$! server_port=$port server_log=$work/caddy.log
}
start_http_proxy() {
  local port; port=$(free_port)
  # shellcheck disable=SC2086
  BENCH_PORT=$port BENCH_TLS_DIR=$work/tls BENCH_ORIGIN_URL="http://127.0.0.1:$origin_port" \
    taskset -c 0 node $EDGE_NODE_ARGS "$HERE/http-proxy-server.js" >"$work/http-proxy.log" 2>&1 &
  server_pid=$! server_port=$port server_log=$work/http-proxy.log
}
start_edge() { # sets edge_state when the edge cannot be measured
  if [ ! -f "$EDGE_MAIN" ]; then edge_state="not built"; return 1; fi
  [ -f services/cli/dist/main.js ] || { edge_state="not built (services/cli)"; return 1; }
  db=cds_bench_edge_$(date +%s)_$RANDOM
  vhost=$db
  log "edge: database and RabbitMQ vhost $db"
  createdb "$db"
  rabbitmqctl add_vhost "$vhost" >/dev/null
  rabbitmqctl set_permissions -p "$vhost" guest '.*' '.*' '.*' >/dev/null
  local database_url="postgres://postgres@127.0.0.1:5432/$db"
  local data_key; data_key=$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))')
  DATABASE_URL=$database_url node services/cli/dist/main.js migrate >"$work/migrate.log" 2>&1 \
    || { cat "$work/migrate.log" >&2; edge_state="failed: migrate"; return 1; }
  BENCH_DATABASE_URL=$database_url DATA_ENCRYPTION_KEY=$data_key BENCH_HOSTNAME=$HOSTNAME_UNDER_TEST \
    BENCH_ORIGIN_URL="http://127.0.0.1:$origin_port" BENCH_TLS_DIR="$work/tls" \
    node "$HERE/seed.js" >"$work/seed.log" 2>&1 || { cat "$work/seed.log" >&2; edge_state="failed: seed"; return 1; }
  local port metrics_port http_port
  port=$(free_port) http_port=$(free_port) metrics_port=$(free_port)
  (
    cd "$work"
    exec env DATABASE_URL="$database_url" AMQP_URL="amqp://guest:guest@127.0.0.1:5672/$vhost" \
      EDGE_HTTPS_PORT="$port" EDGE_HTTP_PORT="$http_port" METRICS_PORT="$metrics_port" BIND_ADDRESS=127.0.0.1 \
      DATA_ENCRYPTION_KEY="$data_key" \
      ASSERTION_DEPLOYMENT_KEY="$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64url"))')" \
      OPERATOR_TOKEN="$(node -e 'console.log(require("crypto").randomBytes(32).toString("hex"))')" \
      LOG_LEVEL=warn taskset -c 0 node $EDGE_NODE_ARGS "$ROOT/$EDGE_MAIN"
  ) >"$work/edge.log" 2>&1 &
  server_pid=$! server_port=$port server_log=$work/edge.log
  local _
  for _ in $(seq 1 120); do
    kill -0 "$server_pid" 2>/dev/null || { tail -20 "$work/edge.log" >&2; edge_state="failed: exited at start-up"; server_pid=; return 1; }
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$metrics_port/readyz" || true)" = 200 ] && return 0
    sleep 0.5
  done
  tail -20 "$work/edge.log" >&2
  edge_state="failed: not ready (/readyz)"
  return 1
}
pg_commits() { psql -d "$db" -Atc "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"; }

# --- load ---------------------------------------------------------------------
declare -A rps p50 p99 cpu rss errors state
run_wrk() { # port path seconds out: the BENCH line of wrk.lua
  taskset -c 1 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$3s" --timeout 10s --latency \
    -H "Host: $HOSTNAME_UNDER_TEST" -s "$HERE/wrk.lua" "https://$HOSTNAME_UNDER_TEST:$1$2" >"$4" 2>&1 \
    || { cat "$4" >&2; return 1; }
  grep '^BENCH requests=' "$4" || { cat "$4" >&2; return 1; }
}
measure() { # server body
  local key="$1:$2" line ticks0 ticks1 commits0=0 commits1=0
  run_wrk "$server_port" "/$2" "$WARMUP" "$work/wrk-$1-$2-warmup.out" >/dev/null || die "wrk failed against $1"
  ticks0=$(cpu_ticks "$server_pid")
  [ "$1" != edge ] || commits0=$(pg_commits)
  line=$(run_wrk "$server_port" "/$2" "$DURATION" "$work/wrk-$1-$2.out") || die "wrk failed against $1"
  ticks1=$(cpu_ticks "$server_pid")
  [ "$1" != edge ] || commits1=$(pg_commits)
  local requests duration_us bytes p50_us p99_us non2xx socket_errors
  eval "$(echo "${line#BENCH }" | tr ' ' '\n' | grep -E '^[a-z0-9_]+=[0-9]+$')"
  [ "$requests" -gt 0 ] || die "no request completed against $1"
  rps[$key]=$(awk -v r="$requests" -v d="$duration_us" 'BEGIN {printf "%.0f", r / (d / 1e6)}')
  p50[$key]=$(awk -v v="$p50_us" 'BEGIN {printf "%.2f", v / 1000}')
  p99[$key]=$(awk -v v="$p99_us" 'BEGIN {printf "%.2f", v / 1000}')
  cpu[$key]=$(awk -v t=$((ticks1 - ticks0)) -v hz="$(getconf CLK_TCK)" -v n="$requests" 'BEGIN {printf "%.1f", t * 1e6 / hz / n}')
  rss[$key]=$(awk -v k="$(rss_kib "$server_pid")" 'BEGIN {printf "%.1f", k / 1024}')
  [ $((non2xx + socket_errors)) = 0 ] || errors[$key]="$non2xx non-2xx answers, $socket_errors socket errors"
  # A proxy answering 2xx without the origin's body would not be proxying at all.
  [ $((bytes / requests)) -ge "$(stat -c %s "$work/bodies/$2")" ] \
    || errors[$key]="${errors[$key]:+${errors[$key]}, }$((bytes / requests)) bytes per answer, less than the body"
  [ "$1" != edge ] || pg_per_1000[$2]=$(awk -v c=$((commits1 - commits0)) -v n="$requests" 'BEGIN {printf "%.1f", c * 1000 / n}')
  log "$1 /$2: ${rps[$key]} req/s, p50 ${p50[$key]} ms, p99 ${p99[$key]} ms, ${cpu[$key]} µs CPU/req, ${rss[$key]} MiB${errors[$key]:+, ${errors[$key]}}"
}
declare -A pg_per_1000

run_h2load() { # port path seconds out log: "requests duration_us p50_us p99_us failed" (h2load's summary and per-request log)
  taskset -c 1 h2load -c"$CONNECTIONS" -m"$H2_STREAMS" -t1 -D"$3" --connect-to="127.0.0.1:$1" --log-file="$5" \
    "https://$HOSTNAME_UNDER_TEST:$1$2" >"$4" 2>&1 || { cat "$4" >&2; return 1; }
  grep -q '^Application protocol: h2' "$4" || { cat "$4" >&2; log "h2load did not negotiate h2"; return 1; }
  local succeeded failed
  succeeded=$(awk '/^requests:/ {print $8}' "$4")
  failed=$(awk '/^requests:/ {print $10 + $12 + $14}' "$4")
  # 2xx answers only in the percentiles; h2load's summary line gives the failures.
  awk -F'\t' '$2 >= 200 && $2 < 300 {print $3}' "$5" | sort -n | awk -v n="$succeeded" -v secs="$3" -v failed="$failed" '
    { v[NR] = $1 }
    END { if (NR == 0) { print 0, secs * 1e6, 0, 0, failed; exit }
          printf "%d %d %d %d %d\n", n, secs * 1e6, v[int((NR - 1) * 0.50) + 1], v[int((NR - 1) * 0.99) + 1], failed }'
}
measure_h2() { # server body: the body over HTTP/2 (key <server>:h2-<body>)
  local key="$1:h2-$2" ticks0 ticks1 commits0=0 commits1=0 out
  run_h2load "$server_port" "/$2" "$WARMUP" "$work/h2load-$1-$2-warmup.out" "$work/h2load-$1-$2-warmup.log" >/dev/null || die "h2load failed against $1"
  ticks0=$(cpu_ticks "$server_pid")
  [ "$1" != edge ] || commits0=$(pg_commits)
  out=$(run_h2load "$server_port" "/$2" "$DURATION" "$work/h2load-$1-$2.out" "$work/h2load-$1-$2.log") || die "h2load failed against $1"
  ticks1=$(cpu_ticks "$server_pid")
  [ "$1" != edge ] || commits1=$(pg_commits)
  local requests duration_us p50_us p99_us failed
  read -r requests duration_us p50_us p99_us failed <<<"$out"
  [ "$requests" -gt 0 ] || die "no request completed over HTTP/2 against $1"
  rps[$key]=$(awk -v r="$requests" -v d="$duration_us" 'BEGIN {printf "%.0f", r / (d / 1e6)}')
  p50[$key]=$(awk -v v="$p50_us" 'BEGIN {printf "%.2f", v / 1000}')
  p99[$key]=$(awk -v v="$p99_us" 'BEGIN {printf "%.2f", v / 1000}')
  cpu[$key]=$(awk -v t=$((ticks1 - ticks0)) -v hz="$(getconf CLK_TCK)" -v n="$requests" 'BEGIN {printf "%.1f", t * 1e6 / hz / n}')
  rss[$key]=$(awk -v k="$(rss_kib "$server_pid")" 'BEGIN {printf "%.1f", k / 1024}')
  [ "$failed" = 0 ] || errors[$key]="$failed failed, errored or timed-out requests over HTTP/2"
  [ "$1" != edge ] || pg_per_1000[h2-$2]=$(awk -v c=$((commits1 - commits0)) -v n="$requests" 'BEGIN {printf "%.1f", c * 1000 / n}')
  log "$1 /$2 over HTTP/2: ${rps[$key]} req/s, p50 ${p50[$key]} ms, p99 ${p99[$key]} ms, ${cpu[$key]} µs CPU/req, ${rss[$key]} MiB${errors[$key]:+, ${errors[$key]}}"
}

edge_state=
for server in "${SERVERS[@]}"; do
  case $server in
    nginx) start_nginx ;;
    caddy) start_caddy ;;
    http-proxy) start_http_proxy ;;
    edge) if ! start_edge; then log "edge: $edge_state"; state[edge]=$edge_state; stop_server; continue; fi ;;
  esac
  if ! wait_serving "$server" "$server_pid" "$server_port" "$server_log"; then
    [ "$server" = edge ] || die "$server does not serve https://$HOSTNAME_UNDER_TEST:$server_port/1k"
    state[edge]="failed: does not serve /1k"; log "edge: ${state[edge]}"; stop_server; continue
  fi
  log "$server on 127.0.0.1:$server_port (CPU 0): ${WARMUP}s warm-up then ${DURATION}s per body, wrk -t$THREADS -c$CONNECTIONS on CPU 1"
  for body in "${BODIES[@]}"; do measure "$server" "$body"; done
  if [ "$server" != http-proxy ]; then
    for body in "${H2_BODIES[@]}"; do measure_h2 "$server" "$body"; done
  fi
  stop_server
done

# --- report -------------------------------------------------------------------
label() { case $1 in 1k) echo "1 KiB" ;; 64k) echo "64 KiB" ;; h2-*) echo "$(label "${1#h2-}"), HTTP/2" ;; esac; }
CASES=("${BODIES[@]}")
for body in "${H2_BODIES[@]}"; do CASES+=("h2-$body"); done
ratio() { [ -n "${1:-}" ] && [ -n "${2:-}" ] && awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}' || echo "–"; }
table() {
  echo "| server | body | req/s | p50 ms | p99 ms | CPU µs/req | RSS MiB | req/s ÷ nginx | req/s ÷ caddy | p99 ÷ caddy |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  local body server key
  for body in "${CASES[@]}"; do
    for server in "${SERVERS[@]}"; do
      key="$server:$body"
      case $key in http-proxy:h2-*) continue ;; esac
      if [ -n "${state[$server]:-}" ]; then
        echo "| $server | $(label "$body") | $server: ${state[$server]} | – | – | – | – | – | – | – |"
        continue
      fi
      echo "| $server | $(label "$body") | ${rps[$key]} | ${p50[$key]} | ${p99[$key]} | ${cpu[$key]} | ${rss[$key]} |" \
        "$(ratio "${rps[$key]}" "${rps[nginx:$body]:-}") | $(ratio "${rps[$key]}" "${rps[caddy:$body]:-}") |" \
        "$(ratio "${p99[$key]}" "${p99[caddy:$body]:-}") |"
    done
  done
}
verdicts() {
  if [ -n "${state[edge]:-}" ]; then
    echo "Target (edge, 1 KiB, at least Caddy's req/s and no worse p99): not measured (edge: ${state[edge]})."
    return
  fi
  local rps_ok p99_ok
  if [ -n "${rps[edge:1k]:-}" ] && [ -n "${rps[caddy:1k]:-}" ]; then
    rps_ok=$(awk -v e="${rps[edge:1k]}" -v c="${rps[caddy:1k]}" 'BEGIN {print (e >= c) ? "PASS" : "FAIL"}')
    p99_ok=$(awk -v e="${p99[edge:1k]}" -v c="${p99[caddy:1k]}" 'BEGIN {print (e <= c) ? "PASS" : "FAIL"}')
    echo "Target (edge, 1 KiB): req/s ≥ Caddy's: **$rps_ok** (${rps[edge:1k]} vs ${rps[caddy:1k]}); p99 ≤ Caddy's: **$p99_ok** (${p99[edge:1k]} vs ${p99[caddy:1k]} ms)."
  else
    echo "Target (edge, 1 KiB, against Caddy): not measured (BENCH_SERVERS / BENCH_BODIES left the edge, Caddy or 1 KiB out)."
  fi
  if [ -n "${rps[edge:h2-1k]:-}" ] && [ -n "${rps[caddy:h2-1k]:-}" ]; then
    rps_ok=$(awk -v e="${rps[edge:h2-1k]}" -v c="${rps[caddy:h2-1k]}" 'BEGIN {print (e >= c) ? "PASS" : "FAIL"}')
    p99_ok=$(awk -v e="${p99[edge:h2-1k]}" -v c="${p99[caddy:h2-1k]}" 'BEGIN {print (e <= c) ? "PASS" : "FAIL"}')
    echo "Target (edge, 1 KiB over HTTP/2): req/s ≥ Caddy's: **$rps_ok** (${rps[edge:h2-1k]} vs ${rps[caddy:h2-1k]}); p99 ≤ Caddy's: **$p99_ok** (${p99[edge:h2-1k]} vs ${p99[caddy:h2-1k]} ms)."
  fi
  if [ -n "${p99[edge:64k]:-}" ] && [ -n "${p99[caddy:64k]:-}" ]; then
    p99_ok=$(awk -v e="${p99[edge:64k]}" -v c="${p99[caddy:64k]}" 'BEGIN {print (e <= c) ? "PASS" : "FAIL"}')
    echo "Target (edge, 64 KiB over HTTP/1.1): p99 ≤ Caddy's: **$p99_ok** (${p99[edge:64k]} vs ${p99[caddy:64k]} ms: $(ratio "${p99[edge:64k]}" "${p99[caddy:64k]}") times)."
  fi
  if [ -n "${cpu[edge:1k]:-}" ] && [ -n "${cpu[nginx:1k]:-}" ]; then
    local cpu_ok
    cpu_ok=$(awk -v e="${cpu[edge:1k]}" -v n="${cpu[nginx:1k]}" "BEGIN {print (e <= $MAX_CPU_RATIO_NGINX * n) ? \"PASS\" : \"FAIL\"}")
    echo "Target (edge, 1 KiB over HTTP/1.1): CPU µs per request ≤ $MAX_CPU_RATIO_NGINX × nginx's: **$cpu_ok** (${cpu[edge:1k]} vs ${cpu[nginx:1k]}: $(ratio "${cpu[edge:1k]}" "${cpu[nginx:1k]}") times)."
  fi
  local key rss_line=() rss_ok=PASS
  for key in edge:1k edge:64k edge:h2-1k; do
    [ -n "${rss[$key]:-}" ] || continue
    rss_line+=("${rss[$key]}")
    awk -v r="${rss[$key]}" "BEGIN {exit !(r > $MAX_RSS_MIB)}" && rss_ok=FAIL
  done
  [ "${#rss_line[@]}" = 0 ] || echo "Target (edge RSS after each run: 1 KiB, 64 KiB, HTTP/2) ≤ $MAX_RSS_MIB MiB: **$rss_ok** ($(IFS=/; echo "${rss_line[*]}") MiB)."
  local body
  for body in "${BODIES[@]}"; do
    [ -n "${rps[edge:$body]:-}" ] && [ -n "${rps[http-proxy:$body]:-}" ] || continue
    echo "Edge ÷ http-proxy, $(label "$body"): req/s $(ratio "${rps[edge:$body]}" "${rps[http-proxy:$body]}"), p99 $(ratio "${p99[edge:$body]}" "${p99[http-proxy:$body]}"), CPU µs/req $(ratio "${cpu[edge:$body]}" "${cpu[http-proxy:$body]}")."
  done
  echo "Edge PostgreSQL transactions per 1,000 requests (not in its CPU figure): ${pg_per_1000[1k]:-n/a} (1 KiB), ${pg_per_1000[64k]:-n/a} (64 KiB), ${pg_per_1000[h2-1k]:-n/a} (1 KiB, HTTP/2)."
}

date_utc=$(run_date)
commit=$(bench_commit)
tool_version() { "$@" 2>&1 | head -1 || true; }  # wrk -v exits 1
versions="node $(node --version), $(tool_version nginx -v | sed 's|.*nginx/|nginx |'), Caddy $(tool_version caddy version | awk '{print $1}'), http-proxy $(node -p 'require("http-proxy/package.json").version'), $(tool_version wrk -v | awk '{sub(/^debian\//, "", $2); print "wrk " $2}'), $(tool_version h2load --version | awk '{print "h2load " $2}')"
broke=0
{
  echo "Last run: $date_utc, \`make bench-edge\` (BENCH_WARMUP=$WARMUP, BENCH_DURATION=$DURATION), commit $commit,"
  echo "$(nproc) CPUs, load average $load_avg at start; $versions."
  echo
  table
  echo
  verdicts
  for key in "${!errors[@]}"; do echo "Errors, $key: ${errors[$key]}."; done
} >"$work/results.md"
echo
cat "$work/results.md"
for key in "${!errors[@]}"; do broke=1; done
case ${state[edge]:-} in failed*) broke=1 ;; esac

if [ "$broke" = 1 ]; then
  log "errors during the run: $BENCH_DOCS_FILE left alone"
  exit 1
fi
bench_records || exit 0
# The results of the last run replace the previous ones.
md_add_section "$BENCH_DOCS_FILE" '<!-- bench-edge:results -->' '
## Edge proxy: `make bench-edge`

<!-- bench-edge:results -->
<!-- /bench-edge:results -->'
md_replace_between "$BENCH_DOCS_FILE" '<!-- bench-edge:results -->' '<!-- /bench-edge:results -->' "$(cat "$work/results.md")"
# One line per run in the run log too: the figures move a lot between runs on this machine.
run_row="| $date_utc | $commit | $load_avg | ${rps[caddy:1k]:-} | ${rps[edge:1k]:-} | $(ratio "${rps[edge:1k]:-}" "${rps[caddy:1k]:-}") | ${p99[caddy:1k]:-} | ${p99[edge:1k]:-} | $(ratio "${p99[edge:1k]:-}" "${p99[caddy:1k]:-}") | ${cpu[caddy:1k]:-} | ${cpu[edge:1k]:-} |"
md_add_section "$BENCH_DOCS_FILE" '<!-- bench-edge:runs -->' '
### Run log

The 1 KiB figures of every recorded run, oldest first.

<!-- bench-edge:runs -->
| date (UTC) | commit | load avg | caddy req/s | edge req/s | edge ÷ caddy | caddy p99 ms | edge p99 ms | p99 edge ÷ caddy | caddy CPU µs/req | edge CPU µs/req |
|---|---|---|---|---|---|---|---|---|---|---|
<!-- /bench-edge:runs -->'
md_append_row "$BENCH_DOCS_FILE" '<!-- bench-edge:runs -->' '<!-- /bench-edge:runs -->' "$run_row"
target_row="| $date_utc | $commit | $load_avg / $(loadavg) | $(ratio "${p99[edge:1k]:-}" "${p99[caddy:1k]:-}") | $(ratio "${p99[edge:64k]:-}" "${p99[caddy:64k]:-}") | $(ratio "${p99[edge:h2-1k]:-}" "${p99[caddy:h2-1k]:-}") | $(ratio "${cpu[edge:1k]:-}" "${cpu[nginx:1k]:-}") | ${rss[edge:1k]:-} / ${rss[edge:64k]:-} / ${rss[edge:h2-1k]:-} | $EDGE_NODE_ARGS |"
md_add_section "$BENCH_DOCS_FILE" '<!-- bench-edge:targets -->' '
### Run log of the targeted ratios

Every recorded run since 2026-11-28, oldest first: p99 ÷ Caddy'"'"'s (targets ≤ 1), CPU µs per 1 KiB request ÷ nginx'"'"'s (≤ 2.5), the edge'"'"'s RSS after each run (≤ 128 MiB).

<!-- bench-edge:targets -->
| date (UTC) | commit | load avg start / end | p99 ÷ caddy, 1 KiB | 64 KiB | HTTP/2 1 KiB | CPU/req ÷ nginx, 1 KiB | edge RSS MiB: 1 KiB / 64 KiB / HTTP/2 | edge node flags |
|---|---|---|---|---|---|---|---|---|
<!-- /bench-edge:targets -->'
md_append_row "$BENCH_DOCS_FILE" '<!-- bench-edge:targets -->' '<!-- /bench-edge:targets -->' "$target_row"
log "recorded in $BENCH_DOCS_FILE"
