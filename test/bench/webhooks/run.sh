#!/usr/bin/env bash
# Benchmark of webhook deliveries (make bench-webhooks): a fresh PostgreSQL
# database and RabbitMQ vhost, then test/bench/webhooks/bench.js measures one
# dispatcher process against a plain keep-alive client sending the same signed
# POSTs, prints both rates and their ratio with PASS/FAIL against the target,
# and records the run in docs/benchmarks.md. Exits non-zero only when the bench
# itself broke. Knobs: BENCH_EVENTS (default 5000), BENCH_WARMUP_EVENTS (300),
# BENCH_DOCS=0 to leave docs/benchmarks.md alone, BENCH_PROFILE=<dir> to write a CPU
# profile of the dispatcher there.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres

log() { echo "[bench-webhooks] $*"; }
die() { echo "[bench-webhooks] FAILED: $*" >&2; exit 1; }

command -v taskset >/dev/null 2>&1 || die "taskset is missing (apt-get install -y util-linux)"
command -v openssl >/dev/null 2>&1 || die "openssl is missing"
command -v rabbitmqctl >/dev/null 2>&1 || die "rabbitmqctl is missing: the bench makes its own RabbitMQ vhost"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs for the pinning (dispatcher and client on CPU 0, receiver on CPU 1)"
[ -f services/webhook-dispatcher/dist/main.js ] || die "build first (npx tsc -b tsconfig.build.json)"

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

BENCH_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" \
BENCH_AMQP_URL="amqp://guest:guest@127.0.0.1:5672/$vhost" \
  taskset -c 1 node test/bench/webhooks/bench.js
