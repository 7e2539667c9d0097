#!/usr/bin/env bash
# Benchmarks of webhook deliveries (make bench-webhooks), on a fresh PostgreSQL
# database and RabbitMQ vhost:
#   - throughput (bench.js): one dispatcher against axios alone and a plain
#     keep-alive client sending the same signed POSTs; PASS/FAIL against
#     dispatcher >= 0.6 x axios alone;
#   - fairness (fairness.js): subscription B's delays with and without a
#     subscription A whose 10,000 due deliveries go to a receiver that never
#     answers while A calls replay-since; then the same with two dispatchers and
#     kill -9 of one, checking that no delivery is lost.
# Both print their figures with PASS/FAIL and record them in
# docs/benchmarks-history.md (BENCH_DOCS_FILE: another file).
# Exits non-zero only when a bench itself broke.
# Knobs: BENCH_MODE (all, throughput or fairness; default all), BENCH_DOCS=0 to
# record nothing. Throughput: BENCH_EVENTS (default 5000),
# BENCH_WARMUP_EVENTS (300), BENCH_SUBSCRIPTIONS (8), BENCH_PROFILE=<dir> for a
# CPU profile of the dispatcher, BENCH_NODE_ARGS for the node flags of the
# services it starts (default none). Fairness: BENCH_FAIRNESS_SECONDS (60 per
# phase), BENCH_B_RATE (20 events/s), BENCH_A_BACKLOG (10000),
# BENCH_DRAIN_SECONDS (120, after the fault).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres

BENCH_NAME=bench-webhooks
# shellcheck source=../lib/bench-lib.sh
. test/bench/lib/bench-lib.sh
export BENCH_DOCS_FILE # bench.js and fairness.js record there too

mode=${BENCH_MODE:-all}
case "$mode" in all|throughput|fairness) ;; *) die "BENCH_MODE is all, throughput or fairness, not '$mode'" ;; esac
need_tools taskset openssl rabbitmqctl
need_cpus 2 "for the pinning (services and clients on CPU 0, receivers on CPU 1)"
need_built services/webhook-dispatcher/dist/main.js services/api/dist/main.js

db=bench_webhooks_$(date +%s)_$RANDOM
vhost=cds-bench-webhooks-$RANDOM$RANDOM
cleanup() {
  dropdb --if-exists --force "$db" >/dev/null 2>&1 || true
  rabbitmqctl delete_vhost "$vhost" >/dev/null 2>&1 || true
}
trap cleanup EXIT

log "database $db, RabbitMQ vhost $vhost"
createdb "$db"
rabbitmqctl add_vhost "$vhost" >/dev/null
rabbitmqctl set_permissions -p "$vhost" guest '.*' '.*' '.*' >/dev/null

export BENCH_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db"
export BENCH_AMQP_URL="amqp://guest:guest@127.0.0.1:5672/$vhost"
if [ "$mode" != fairness ]; then taskset -c 1 node test/bench/webhooks/bench.js; fi
if [ "$mode" != throughput ]; then taskset -c 1 node test/bench/webhooks/fairness.js; fi
