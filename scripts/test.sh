#!/usr/bin/env bash
# Runs every check and test suite, keeps going after a failure so one run shows
# everything, and ends with one summary line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
out=test-results
rm -rf "$out" && mkdir -p "$out"
status=0
step() { local name=$1; shift; echo "=== $name"; if ! "$@"; then echo "=== $name FAILED"; status=1; fi; }

# Everything runs on the Node.js that package.json's "engines" names (`make test` puts it on the PATH).
echo "=== node $(node --version) ($(command -v node))"
node -e 'const want = /\d+/.exec(require("./package.json").engines.node)[0]; if (process.versions.node.split(".")[0] !== want) { console.error(`node ${process.version} is not Node.js ${want}: run make test, which puts Node.js ${want} on the PATH`); process.exit(1); }' || exit 1

step lint npx eslint --max-warnings 0 .
step typecheck npx tsc -p tsconfig.json
step unit npx jest --selectProjects unit --ci --json --outputFile="$out/unit.json"
# The database-outage soak test mostly waits for minutes: it runs beside the serial suites, not after them.
echo "=== soak (in the background, output at the end)"
TEST_DATABASE=postgres npx jest --selectProjects soak --ci --json --outputFile="$out/soak.json" >"$out/soak.log" 2>&1 &
soak_pid=$!
step integration-postgres env TEST_DATABASE=postgres npx jest --selectProjects integration --ci --runInBand --json --outputFile="$out/integration-postgres.json"
step integration-sqlite env TEST_DATABASE=sqlite npx jest --selectProjects integration --ci --runInBand --json --outputFile="$out/integration-sqlite.json"
# `make demo DEMO_EXIT=1` from the built output: on its own free ports, once (it uses SQLite alone).
step demo npx jest --selectProjects demo --ci --json --outputFile="$out/demo.json"
# The split-mode deployment under faults (test/system, docs/reliability.md): after the
# serial suites, alone on the machine. SYSTEM_SEED=<n> replays a run.
step system npx jest --selectProjects system --ci --runInBand --json --outputFile="$out/system.json"
echo "=== soak"
wait "$soak_pid"
soak_status=$?
cat "$out/soak.log"
if [ "$soak_status" -ne 0 ]; then echo "=== soak FAILED"; status=1; fi

node scripts/summarize-tests.js "$out"/*.json || status=1
exit $status
