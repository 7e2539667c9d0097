#!/usr/bin/env bash
# Benchmark of the checker (make bench-checker): 5,000 pending_dns domains whose
# records are in challtestsrv; one checker checks them until all pass ownership
# and routing, beside a bare loop of the same DNS queries with node's resolver,
# in the same run (see bench.js). The targets are on CPU per checked domain in
# that run: the checker process at most 2x the bare loop, and PostgreSQL at
# most 2x the DNS server of the checker phase (the same queries, the same
# time). Wall times and their ratio are information. Prints the figures and
# PASS/FAIL and records the run in docs/benchmarks-history.md.
# Knobs: BENCH_DOMAINS (default 5000), BENCH_CONCURRENCY (default 32, the
# checker's default), BENCH_DOCS=0 to record nothing,
# BENCH_DOCS_FILE to record elsewhere, BENCH_PROFILE=<dir> for a CPU profile of
# the checker phase.
set -euo pipefail
cd "$(dirname "$0")/../../.."
MAX_CHECKER_CPU_RATIO=2
MAX_DATABASE_CPU_RATIO=2
BENCH_NAME=bench-checker
# shellcheck source=../lib/bench-lib.sh
. test/bench/lib/bench-lib.sh

install_missing pebble-challtestsrv:pebble
need_built services/checker/dist/index.js
load_avg=$(loadavg)
result=$(node --expose-gc test/bench/checker/bench.js | tail -n 1)
field() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$result" "$1"; }
domains=$(field domains); reference_ms=$(field reference_ms); checker_ms=$(field checker_ms); ratio=$(field ratio); concurrency=$(field concurrency)
ref_cpu=$(field reference_cpu_ms); checker_cpu=$(field checker_cpu_ms); db_cpu=$(field checker_database_cpu_ms)
ref_dns_cpu=$(field reference_dns_server_cpu_ms); checker_dns_cpu=$(field checker_dns_server_cpu_ms)
ref_us=$(field reference_cpu_us_per_domain); checker_us=$(field checker_cpu_us_per_domain)
db_us=$(field database_cpu_us_per_domain); dns_us=$(field dns_server_cpu_us_per_domain)
checker_cpu_ratio=$(field checker_cpu_ratio); db_cpu_ratio=$(field database_cpu_ratio)
at_most() { node -e 'console.log(Number(process.argv[1]) <= Number(process.argv[2]) ? "PASS" : "FAIL")' "$1" "$2"; }
checker_verdict=$(at_most "$checker_cpu_ratio" "$MAX_CHECKER_CPU_RATIO"); db_verdict=$(at_most "$db_cpu_ratio" "$MAX_DATABASE_CPU_RATIO")
log "domains: $domains, concurrency: $concurrency, load average before: $load_avg"
log "wall time: reference (bare DNS loop) ${reference_ms} ms, checker (all ownership + routing passing) ${checker_ms} ms, ratio $ratio (information)"
log "CPU ms, reference: bench process $ref_cpu, DNS server $ref_dns_cpu"
log "CPU ms, checker:   bench process $checker_cpu, DNS server $checker_dns_cpu, PostgreSQL $db_cpu (the bench's polling, apart: $(field bench_poll_database_cpu_ms))"
log "CPU us per domain: checker $checker_us, reference loop $ref_us, PostgreSQL $db_us, DNS server $dns_us"
log "checker / reference loop CPU per domain: $checker_cpu_ratio (target <= $MAX_CHECKER_CPU_RATIO): $checker_verdict"
log "PostgreSQL / DNS server CPU per domain: $db_cpu_ratio (target <= $MAX_DATABASE_CPU_RATIO): $db_verdict"
if bench_records; then
  row="| $(run_date) | $(bench_commit) | $domains | $concurrency | $reference_ms | $checker_ms | $ratio | – | $load_avg | $ref_cpu / $ref_dns_cpu | $checker_cpu / $checker_dns_cpu / $db_cpu | $checker_us / $ref_us / $db_us / $dns_us | $checker_cpu_ratio $checker_verdict | $db_cpu_ratio $db_verdict |"
  md_insert_before "$BENCH_DOCS_FILE" '<!-- bench-checker rows -->' "$row"
  log "recorded in $BENCH_DOCS_FILE"
fi
