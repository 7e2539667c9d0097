#!/usr/bin/env bash
# Adds one result row to the bench-api table of docs/benchmarks.md (between
# the bench-api:runs markers), keeping the newest KEEP rows; creates the
# section at the end of the file when the markers are missing.
# Usage: record-run.sh <markdown file> "<table row>"
set -euo pipefail
file=$1
row=$2
KEEP=20
begin='<!-- bench-api:runs -->'
end='<!-- /bench-api:runs -->'

if [ ! -f "$file" ] || ! grep -qF "$begin" "$file"; then
  if [ -s "$file" ]; then heading=''; else heading='# Benchmarks'; fi
  {
    echo "$heading"
    cat <<EOF

## POST /v1/domains: \`make bench-api\`

$begin
| date (UTC) | commit | CPUs | load avg | node | PostgreSQL | API creates/s | API p50 ms | API p99 ms | pgbench tps | pgbench p50 ms | pgbench p99 ms | ratio API/pgbench | API CPU ms/create | PG commits/create |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
$end
EOF
  } >>"$file"
fi

tmp=$(mktemp)
awk -v begin="$begin" -v end="$end" -v row="$row" -v keep="$KEEP" '
  $0 == begin { inside = 1; print; next }
  inside && /^\| [0-9][0-9][0-9][0-9]-/ { rows[++n] = $0; next }
  inside && $0 == end {
    rows[++n] = row
    for (i = (n > keep ? n - keep + 1 : 1); i <= n; i++) print rows[i]
    inside = 0; print; next
  }
  { print }
' "$file" >"$tmp"
cat "$tmp" >"$file"
rm -f "$tmp"
