#!/usr/bin/env bash
# Benchmark of the checker (make bench-checker): 5,000 pending_dns domains whose
# records are in challtestsrv; the time one checker takes until all pass
# ownership and routing, beside a bare loop of the same DNS queries with node's
# resolver, in the same run (see bench.js). Prints the figures and PASS/FAIL
# against the target and records the run in docs/benchmarks.md.
# Knobs: BENCH_DOMAINS (default 5000), BENCH_CONCURRENCY (default 32, the
# checker's default), BENCH_DOCS=0 to leave docs/benchmarks.md alone,
# BENCH_PROFILE=<dir> for a CPU profile of the checker phase.
set -euo pipefail
cd "$(dirname "$0")/../../.."
TARGET_RATIO=0.5
log() { echo "[bench-checker] $*"; }

[ -x /usr/bin/pebble-challtestsrv ] || { log "installing pebble"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pebble >/dev/null; }
load_avg=$(cut -d' ' -f1 /proc/loadavg)
result=$(node test/bench/checker/bench.js | tail -n 1)
field() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$result" "$1"; }
domains=$(field domains); reference_ms=$(field reference_ms); checker_ms=$(field checker_ms); ratio=$(field ratio); concurrency=$(field concurrency)
verdict=$(node -e 'console.log(Number(process.argv[1]) >= Number(process.argv[2]) ? "PASS" : "FAIL")' "$ratio" "$TARGET_RATIO")
log "domains: $domains, concurrency: $concurrency, load average before: $load_avg"
log "reference (bare DNS loop): ${reference_ms} ms"
log "checker (all ownership + routing passing): ${checker_ms} ms"
log "ratio reference/checker: $ratio (target >= $TARGET_RATIO): $verdict"
ref_cpu=$(field reference_cpu_ms); checker_cpu=$(field checker_cpu_ms); db_cpu=$(field checker_database_cpu_ms)
ref_dns_cpu=$(field reference_dns_server_cpu_ms); checker_dns_cpu=$(field checker_dns_server_cpu_ms)
log "CPU ms, reference: bench process $ref_cpu, DNS server $ref_dns_cpu"
log "CPU ms, checker:   bench process $checker_cpu, DNS server $checker_dns_cpu, PostgreSQL $db_cpu"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit+dirty"
if [ "${BENCH_DOCS:-1}" != "0" ]; then
  row="| $(date -u +%Y-%m-%dT%H:%MZ) | $commit | $domains | $concurrency | $reference_ms | $checker_ms | $ratio | $verdict | $load_avg | $ref_cpu / $ref_dns_cpu | $checker_cpu / $checker_dns_cpu / $db_cpu |"
  node -e '
    const fs = require("fs"); const [file, row] = process.argv.slice(1);
    const text = fs.readFileSync(file, "utf8"); const marker = "<!-- bench-checker rows -->";
    if (!text.includes(marker)) throw new Error("no bench-checker table in " + file);
    fs.writeFileSync(file, text.replace(marker, row + "\n" + marker));
  ' docs/benchmarks.md "$row"
  log "recorded in docs/benchmarks.md"
fi
