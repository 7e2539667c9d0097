#!/usr/bin/env bash
# Appends one result row to the bench-housekeeping table of docs/benchmarks.md
# (before the bench-housekeeping:runs end marker; every run is kept). Creates
# the section at the end of the file when the markers are missing.
# Usage: record-run.sh <markdown file> "<table row>"
set -euo pipefail
file=$1
row=$2
begin='<!-- bench-housekeeping:runs -->'
end='<!-- /bench-housekeeping:runs -->'

if [ ! -f "$file" ] || ! grep -qF "$begin" "$file"; then
  cat >>"$file" <<EOF

## Housekeeping: \`make bench-housekeeping\`

$begin
| date (UTC) | commit | CPUs | load avg start / end | rows seeded | requests/s | run s | rows deleted | p50 / p99 ms without run | p50 / p99 ms during run | p99 ratio | target p99 ≤ 2× | not 201 during run | outbox MiB before → after → VACUUM | webhook_deliveries MiB before → after → VACUUM | webhook_attempts MiB before → after → VACUUM |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
$end
EOF
fi

tmp=$(mktemp)
awk -v end="$end" -v row="$row" '$0 == end { print row } { print }' "$file" >"$tmp"
cat "$tmp" >"$file"
rm -f "$tmp"
