#!/usr/bin/env bash
# Adds one run's report to the bench-scale section of docs/benchmarks.md
# (before the bench-scale:runs end marker; every run is kept). Creates the
# section at the end of the file when the markers are missing.
# Usage: record-run.sh <markdown file> <report file>
set -euo pipefail
file=$1
report=$2
begin='<!-- bench-scale:runs -->'
end='<!-- /bench-scale:runs -->'

if [ ! -f "$file" ] || ! grep -qF "$begin" "$file"; then
  printf '\n## Scale: `make bench-scale`\n\n%s\n%s\n' "$begin" "$end" >>"$file"
fi

tmp=$(mktemp)
awk -v end="$end" -v report="$report" '$0 == end { while ((getline line < report) > 0) print line; print "" } { print }' "$file" >"$tmp"
cat "$tmp" >"$file"
rm -f "$tmp"
