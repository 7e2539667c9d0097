#!/usr/bin/env bash
# Benchmark of housekeeping (make bench-housekeeping, DECISIONS §9). In one run,
# on one fresh PostgreSQL database migrated by `cdctl migrate`:
#   1. seed.js writes 1,000,000 published outbox rows and 1,000,000 finished
#      webhook deliveries with their attempts, all past retention, then VACUUM ANALYZE;
#   2. the API service (split mode, its outbox relayed to RabbitMQ in a
#      throwaway vhost) pinned to CPU 0, with HOUSEKEEPING_INTERVAL set so that
#      its first housekeeping run starts about 20 s after phase 1 ends (the
#      lease row says a run just ended, so the tick at start-up is not due);
#   3. load.js pinned to CPU 1: POST /v1/domains at a fixed 200 per second,
#      each request a new hostname of the next of BENCH_LOAD_APPS applications, from the start to the end of that run:
#      phase 1 = BENCH_PHASE1 s without housekeeping (after BENCH_WARMUP s),
#      phase 2 = the requests due while the run held the lease (its start and
#      end as the lease row records them).
# Prints the p50/p99 latency of both phases (phase 2 also by the table being
# pruned, from sampler.js), their p99 ratio and PASS/FAIL against 2x, the run's duration and rows deleted (its `housekeeping run
# finished` log line), and the size of outbox, webhook_deliveries and
# webhook_attempts with their indexes before, after the run and after a plain
# VACUUM. Records the run in docs/benchmarks-history.md. Exits non-zero only when the
# bench itself broke (start-up failure, the run failed or never came, phase 1
# answers other than 201) or could not measure: without housekeeping the
# service must answer at the arrival rate with a median under 1 s (a machine
# too busy for the rate fails here).
# Knobs: BENCH_RATE (requests/s, default 200), BENCH_LOAD_APPS (applications the
# load's requests take turns from, default 10), BENCH_WARMUP / BENCH_PHASE1
# (seconds, default 10 / 30), BENCH_SETTLE (seconds of load between the CHECKPOINT and
# phase 1, default 10), BENCH_OUTBOX_ROWS / BENCH_DELIVERIES (default
# 1000000 each), BENCH_APPS (default 100), BENCH_PRUNE_TIMEOUT (seconds the
# load goes on after the run was due, default 900: a run still going then
# fails the target, and the bench waits as long again for it to end without
# load), BENCH_QUIET_LOAD (when set, wait after
# seeding until the 1-minute load average is below it, at most
# BENCH_QUIET_WAIT seconds, default 1800: other work on the machine skews the
# figures), BENCH_DOCS=0 to record nothing, BENCH_DOCS_FILE
# (default docs/benchmarks-history.md), BENCH_COMMIT (the commit the record names;
# default `git rev-parse --short HEAD`, +dirty when tracked files differ),
# BENCH_KEEP=<dir> to keep the per-request records, samples and service log there,
# BENCH_PG_SETTINGS (e.g. "wal_compression=lz4"; space-separated name=value pairs set on the
# bench's database with ALTER DATABASE, for every session in it: what a deployment's server
# settings would change, measured on the shared test server).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
HERE=$ROOT/test/bench/housekeeping
RATE=${BENCH_RATE:-200}
WARMUP=${BENCH_WARMUP:-10}
PHASE1=${BENCH_PHASE1:-30}
SETTLE=${BENCH_SETTLE:-10}
PRUNE_TIMEOUT=${BENCH_PRUNE_TIMEOUT:-900}
LOAD_APPS=${BENCH_LOAD_APPS:-10}
# The first run starts this long after the API does: start-up, warm-up, settling, phase 1 and a margin.
INTERVAL=$((WARMUP + SETTLE + PHASE1 + 20))
TARGET_P99_RATIO=2
export PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres

BENCH_NAME=bench-housekeeping
# shellcheck source=../lib/bench-lib.sh
. "$ROOT/test/bench/lib/bench-lib.sh"

need_tools curl taskset rabbitmqctl
need_cpus 2 "for the pinning (API on CPU 0, load on CPU 1)"
need_built services/api/dist/main.js services/cli/dist/main.js

work=$(mktemp -d /tmp/bench-housekeeping.XXXXXX)
db=bench_housekeeping_$(date +%s)_$RANDOM
vhost=$db
svc_pid=
load_pid=
sampler_pid=
cleanup() {
  [ -z "$sampler_pid" ] || stop_pid "$sampler_pid"
  [ -z "$load_pid" ] || stop_pid "$load_pid"
  [ -z "$svc_pid" ] || stop_pid "$svc_pid"
  dropdb --if-exists --force "$db" >/dev/null 2>&1 || true
  rabbitmqctl delete_vhost "$vhost" >/dev/null 2>&1 || true
  if [ -n "${BENCH_KEEP:-}" ]; then mkdir -p "$BENCH_KEEP" && cp -r "$work"/. "$BENCH_KEEP"/; fi
  rm -rf "$work"
}
trap cleanup EXIT

mib() { awk -v b="$1" 'BEGIN {printf "%.0f", b / 1048576}'; }
sizes() { # the three tables' sizes with indexes and TOAST, in bytes, space-separated
  psql -d "$db" -Atc "SELECT string_agg(pg_total_relation_size(t)::text, ' ' ORDER BY o) FROM unnest(ARRAY['outbox','webhook_deliveries','webhook_attempts']::regclass[]) WITH ORDINALITY AS x(t, o)"
}
counts() {
  psql -d "$db" -Atc "SELECT (SELECT count(*) FROM outbox) || ' ' || (SELECT count(*) FROM webhook_deliveries) || ' ' || (SELECT count(*) FROM webhook_attempts)"
}

# --- 1. database, seed -----------------------------------------------------------
log "database $db, RabbitMQ vhost $vhost"
createdb "$db"
pg_settings=${BENCH_PG_SETTINGS:-}
for setting in $pg_settings; do
  psql -d "$db" -qc "ALTER DATABASE \"$db\" SET ${setting%%=*} = '${setting#*=}'" || die "could not set $setting"
done
rabbitmqctl add_vhost "$vhost" >/dev/null
rabbitmqctl set_permissions -p "$vhost" guest '.*' '.*' '.*' >/dev/null
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db"
export BENCH_DATABASE_URL=$DATABASE_URL
node services/cli/dist/main.js migrate >/dev/null
DATA_ENCRYPTION_KEY=$(random_base64)
export DATA_ENCRYPTION_KEY
seed_began=$(now_ms)
node "$HERE/seed.js"
seed_s=$(awk -v a="$seed_began" -v b="$(now_ms)" 'BEGIN {printf "%.0f", (b - a) / 1000}')
read -r -a size_before <<<"$(sizes)"
read -r -a count_before <<<"$(counts)"
log "seeded in ${seed_s}s; rows (outbox, webhook_deliveries, webhook_attempts): ${count_before[*]}"
# The seed's gigabytes are written out now, not while phase 1 measures.
psql -d "$db" -qc "CHECKPOINT"
sync

# On a shared machine: wait for the others' work to quieten before the measured part.
if [ -n "${BENCH_QUIET_LOAD:-}" ]; then
  quiet_deadline=$(( $(date +%s) + ${BENCH_QUIET_WAIT:-1800} ))
  until awk -v l="$(loadavg)" -v m="$BENCH_QUIET_LOAD" 'BEGIN {exit !(l < m)}'; do
    [ "$(date +%s)" -lt "$quiet_deadline" ] || { log "load average still $(loadavg); going on"; break; }
    sleep 10
  done
  log "load average $(loadavg)"
fi
load_start=$(loadavg)

# --- 2. the API service, its first housekeeping run INTERVAL s after start -------
node "$HERE/lease.js" defer
api_port=$(free_port)
metrics_port=$(free_port)
operator_token=$(random_base64 hex)
(
  cd "$work"
  exec env AMQP_URL="amqp://guest:guest@127.0.0.1:5672/$vhost" API_PORT="$api_port" METRICS_PORT="$metrics_port" LOG_LEVEL=info \
    OPERATOR_TOKEN="$operator_token" HOUSEKEEPING_INTERVAL="${INTERVAL}s" \
    ASSERTION_DEPLOYMENT_KEY="$(random_base64 base64url)" \
    taskset -c 0 node "$ROOT/services/api/dist/main.js"
) >"$work/service.log" 2>&1 &
svc_pid=$!
wait_ready "$svc_pid" "$metrics_port" "$work/service.log"
api="http://127.0.0.1:$api_port"
operator() {
  curl -fsS -X POST -H "Authorization: Bearer $operator_token" -H 'Content-Type: application/json' "$api$1" -d "$2"
}
# The load comes from LOAD_APPS applications in turn, as a multi-tenant deployment's does: one
# application's creates take turns on its live-domain counter row (see docs/benchmarks.md).
secrets=()
for i in $(seq 1 "$LOAD_APPS"); do
  operator /operator/v1/applications \
    "{\"slug\":\"bench-$i\",\"name\":\"Bench $i\",\"limits\":{\"live_domains\":100000000,\"api_requests_per_minute\":100000000}}" >/dev/null \
    || die "creating application bench-$i failed"
  secrets+=("$(operator "/operator/v1/applications/bench-$i/credentials" '{}' | json_field secret)") || die "issuing the credential of bench-$i failed"
done
tokens=$(IFS=,; echo "${secrets[*]}")

# --- 3. load: warm-up, phase 1, then on until the housekeeping run ends ---------
log "load: POST /v1/domains at ${RATE}/s from $LOAD_APPS applications (CPU 1), API on CPU 0; housekeeping due ${INTERVAL}s after the API started"
BENCH_SAMPLES="$work/samples" taskset -c 1 node "$HERE/sampler.js" >"$work/sampler.log" 2>&1 &
sampler_pid=$!
BENCH_API=$api BENCH_TOKENS=$tokens BENCH_RATE=$RATE BENCH_RECORDS="$work/records" BENCH_TAG="hk$RANDOM" \
  taskset -c 1 node "$HERE/load.js" >"$work/load.log" 2>&1 &
load_pid=$!
sleep "$WARMUP"
# Autovacuum may be off (it is on the machines these figures come from): ANALYZE as autoanalyze
# would have by now, so that no statement keeps a plan made for the empty tables the run began
# with (each foreign-key check of domain_checks scanned every domain until then).
[ "$(psql -d "$db" -Atc 'SHOW autovacuum')" = on ] || { psql -d "$db" -qc "ANALYZE"; log "autovacuum is off: ANALYZE after the warm-up"; }
# What the setup wrote since the seed's checkpoint is written out now, so that it does not
# bring a checkpoint into phase 1 (one did once: a p99 of 295 ms). Each page's first change
# after a checkpoint writes the whole page to the WAL (one phase 1 right after it had 83.8 ms),
# so phase 1 starts SETTLE s later, once the load's pages have had their first change.
# The run's own WAL brings its checkpoints in phase 2.
psql -d "$db" -qc "CHECKPOINT"
sleep "$SETTLE"
p1_from=$(now_ms)
log "phase 1: ${PHASE1}s without housekeeping"
sleep "$PHASE1"
p1_to=$(now_ms)
load_phase1=$(loadavg)
# Phase 1 must show a service that keeps up with the rate, or the comparison means nothing.
sleep 5
eval "$(node "$HERE/phases.js" "$work/records" "$p1_from" "$p1_to" | tr ' ' '\n' | sed 's/^/a_/')"
log "phase 1: $a_requests requests answered, p50 $a_p50 ms, p99 $a_p99 ms, $a_answered answers/s, $a_errors not 201"
# Answers at the arrival rate, without a queue left over from the warm-up (a median above 1 s).
keeps_up=$(awk -v n="$a_requests" -v r="$a_answered" -v p50="$a_p50" -v rate="$RATE" -v s="$PHASE1" \
  'BEGIN {print (n >= 0.98 * rate * s && r >= 0.95 * rate && p50 < 1000) ? 1 : 0}')
[ "$keeps_up" = 1 ] || die "without housekeeping the service did not keep up with ${RATE}/s (load average $load_phase1): the machine is too busy, or lower BENCH_RATE"
[ "$a_errors" = 0 ] || { tail -20 "$work/service.log" >&2; die "$a_errors answers other than 201 in phase 1"; }
log "phase 2: waiting for the housekeeping run (the load stops if it is still going ${PRUNE_TIMEOUT}s after it was due)"
run_ended() { grep -q '"housekeeping run \(finished\|failed\|stopped early\)"' "$work/service.log"; }
stop_load() {
  load_end=$(loadavg)
  stop_pid "$load_pid"; load_pid=
  stop_pid "$sampler_pid"; sampler_pid=
  cat "$work/load.log"
}
cut_at=$(( $(date +%s) + INTERVAL - WARMUP - PHASE1 + PRUNE_TIMEOUT ))
p2_cut=
while ! run_ended; do
  kill -0 "$svc_pid" 2>/dev/null || { tail -20 "$work/service.log" >&2; die "the service exited during the run"; }
  if [ -n "$load_pid" ]; then
    kill -0 "$load_pid" 2>/dev/null || { cat "$work/load.log" >&2; die "the load generator exited"; }
    if [ "$(date +%s)" -ge "$cut_at" ]; then
      # Under load the run may never end: phase 2 ends here, the run then goes on alone.
      p2_cut=$(now_ms)
      stop_load
      log "the run is still going: load stopped, waiting for the run to end (up to ${PRUNE_TIMEOUT}s)"
    fi
  else
    [ "$(date +%s)" -lt $((cut_at + PRUNE_TIMEOUT)) ] || die "the housekeeping run did not end within ${PRUNE_TIMEOUT}s after the load stopped"
  fi
  sleep 1
done
[ -z "$load_pid" ] || stop_load
run_line=$(grep '"housekeeping run \(finished\|failed\|stopped early\)"' "$work/service.log" | head -1)
grep -q '"housekeeping run finished"' <<<"$run_line" || { echo "$run_line" >&2; die "the housekeeping run did not succeed"; }
eval "$(node "$HERE/lease.js" read | tr ' ' '\n' | sed 's/^/lease_/')"
[ "$lease_holder" = 0 ] || die "the lease is still held after the run"
[ "$lease_run_at" -ge "$p1_to" ] || die "housekeeping started at $lease_run_at, before phase 1 ended ($p1_to): the phases overlap"
p2_to=${p2_cut:-$lease_success_at}

# --- 4. figures -------------------------------------------------------------------
read -r -a size_after <<<"$(sizes)"
read -r -a count_after <<<"$(counts)"
log "VACUUM (what autovacuum does next)"
psql -d "$db" -qc "VACUUM outbox, webhook_deliveries, webhook_attempts"
read -r -a size_vacuum <<<"$(sizes)"
stop_pid "$svc_pid"; svc_pid=

# The run's own report: duration and rows deleted per table.
eval "$(node -e '
  const r = JSON.parse(process.argv[1]);
  const d = r.deleted;
  console.log(`run_ms=${r.duration_ms} run_rows=${r.rows} del_outbox=${d.outbox} del_deliveries=${d.webhook_deliveries} del_attempts=${d.webhook_attempts}`);
' "$run_line")"
mapfile -t phase < <(node "$HERE/phases.js" "$work/records" "$p1_from" "$p1_to" "$lease_run_at" "$p2_to")
eval "$(echo "${phase[0]}" | tr ' ' '\n' | sed 's/^/a_/')"
eval "$(echo "${phase[1]}" | tr ' ' '\n' | sed 's/^/b_/')"
# Phase 2 by the table being pruned (sampler.js), with the WAL the whole cluster wrote meanwhile.
by_table=$(node "$HERE/prune-windows.js" "$work/samples" "$lease_run_at" "$p2_to" | while read -r table from to wal; do
  eval "$(node "$HERE/phases.js" "$work/records" "$from" "$to" | tr ' ' '\n' | sed 's/^/t_/')"
  printf '    %-19s %6.1f s   p50 %s ms   p99 %s ms   max %s ms   (%s requests, %s not 201; %s MiB of WAL)\n' \
    "$table" "$(awk -v a="$from" -v b="$to" 'BEGIN {print (b - a) / 1000}')" "$t_p50" "$t_p99" "$t_max" "$t_requests" "$t_errors" "$wal"
done)
run_s=$(awk -v v="$run_ms" 'BEGIN {printf "%.1f", v / 1000}')
p2_s=$(awk -v a="$lease_run_at" -v b="$p2_to" 'BEGIN {printf "%.1f", (b - a) / 1000}')
cut_note=
[ -z "$p2_cut" ] || cut_note="
  the run outlasted the load: load stopped ${p2_s}s into it (BENCH_PRUNE_TIMEOUT ${PRUNE_TIMEOUT}s), the run went on alone"
ratio=$(awk -v a="$a_p99" -v b="$b_p99" 'BEGIN {printf "%.2f", b / a}')
verdict=$(awk -v r="$ratio" -v t="$TARGET_P99_RATIO" -v e="$b_errors" -v cut="${p2_cut:-0}" 'BEGIN {print (r <= t && e == 0 && cut == 0) ? "PASS" : "FAIL"}')
date_utc=$(run_date)
cpus=$(nproc)
node_v=$(node --version)
pg_v=$(psql -d "$db" -Atc "SHOW server_version" | awk '{print $1}')
commit=$(bench_commit)
size_cell() { echo "$(mib "${size_before[$1]}") → $(mib "${size_after[$1]}") → $(mib "${size_vacuum[$1]}")"; }

cat <<EOF

Housekeeping benchmark ($date_utc, $cpus CPUs, node $node_v, PostgreSQL $pg_v, commit $commit)${pg_settings:+
  database settings: $pg_settings}
  load average: $load_start when the API started, $load_phase1 after phase 1, $load_end after the run
  seeded (${seed_s}s): outbox ${count_before[0]}, webhook_deliveries ${count_before[1]}, webhook_attempts ${count_before[2]} rows, all past retention
  housekeeping run: ${run_s} s, $run_rows rows deleted (outbox $del_outbox, webhook_deliveries $del_deliveries, webhook_attempts $del_attempts)$cut_note
  rows left: outbox ${count_after[0]}, webhook_deliveries ${count_after[1]}, webhook_attempts ${count_after[2]} (the load's outbox rows included)
  size with indexes, MiB (before → after the run → after VACUUM):
    outbox              $(size_cell 0)
    webhook_deliveries  $(size_cell 1)
    webhook_attempts    $(size_cell 2)
  POST /v1/domains at ${RATE}/s from $LOAD_APPS applications, open loop:
    phase 1, no housekeeping    p50 $a_p50 ms   p99 $a_p99 ms   max $a_max ms   ($a_requests requests in ${PHASE1}s, $a_answered answers/s, $a_errors not 201)
    phase 2, during the run     p50 $b_p50 ms   p99 $b_p99 ms   max $b_max ms   ($b_requests requests in ${p2_s}s, $b_answered answers/s, $b_errors not 201)
  phase 2 by the table being pruned:
$by_table
  p99 during ÷ p99 without    $ratio
  target p99 ≤ ${TARGET_P99_RATIO}×, every answer 201, the run ended under load   $verdict
EOF

bench_records || exit 0
run_cell=$run_s
[ -z "$p2_cut" ] || run_cell="$run_s (load stopped at $p2_s)"
row="| $date_utc | $commit | $cpus | $load_start / $load_end | $(( count_before[0] + count_before[1] + count_before[2] )) | $RATE from $LOAD_APPS applications${pg_settings:+; $pg_settings} | $run_cell | $run_rows | $a_p50 / $a_p99 | $b_p50 / $b_p99 | **$ratio** | $verdict | $b_errors | $(size_cell 0) | $(size_cell 1) | $(size_cell 2) |"
begin='<!-- bench-housekeeping:runs -->'
end='<!-- /bench-housekeeping:runs -->'
md_add_section "$BENCH_DOCS_FILE" "$begin" "
## Housekeeping: \`make bench-housekeeping\`

$begin
| date (UTC) | commit | CPUs | load avg start / end | rows seeded | requests/s | run s | rows deleted | p50 / p99 ms without run | p50 / p99 ms during run | p99 ratio | target p99 ≤ 2× | not 201 during run | outbox MiB before → after → VACUUM | webhook_deliveries MiB before → after → VACUUM | webhook_attempts MiB before → after → VACUUM |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
$end"
md_append_row "$BENCH_DOCS_FILE" "$begin" "$end" "$row"  # every run kept
log "recorded in $BENCH_DOCS_FILE"
