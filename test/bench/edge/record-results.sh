#!/usr/bin/env bash
# Replaces the results of `make bench-edge` in docs/benchmarks.md: everything
# between the bench-edge:results markers becomes the given block (the last run
# only). Creates the section at the end of the file when the markers are missing.
# With a third argument, also appends that table row to the run log between
# the bench-edge:runs markers (every run is kept).
# Usage: record-results.sh <markdown file> <file holding the new block> [run-log row]
set -euo pipefail
file=$1
block=$2
row=${3:-}
begin='<!-- bench-edge:results -->'
end='<!-- /bench-edge:results -->'

if [ ! -f "$file" ] || ! grep -qF "$begin" "$file"; then
  printf '\n## Edge proxy: `make bench-edge`\n\n%s\n%s\n' "$begin" "$end" >>"$file"
fi

tmp=$(mktemp)
awk -v begin="$begin" -v end="$end" -v block="$block" '
  $0 == begin { print; while ((getline line < block) > 0) print line; skip = 1; next }
  $0 == end { skip = 0 }
  !skip { print }
' "$file" >"$tmp"
cat "$tmp" >"$file"
rm -f "$tmp"

if [ -n "$row" ]; then
  runs_begin='<!-- bench-edge:runs -->'
  runs_end='<!-- /bench-edge:runs -->'
  if ! grep -qF "$runs_begin" "$file"; then
    printf '\n### Run log\n\nThe 1 KiB figures of every recorded run, oldest first.\n\n%s\n| date (UTC) | commit | load avg | caddy req/s | edge req/s | edge ÷ caddy | caddy p99 ms | edge p99 ms | p99 edge ÷ caddy | caddy CPU µs/req | edge CPU µs/req |\n|---|---|---|---|---|---|---|---|---|---|---|\n%s\n' "$runs_begin" "$runs_end" >>"$file"
  fi
  tmp=$(mktemp)
  awk -v end="$runs_end" -v row="$row" '$0 == end { print row } { print }' "$file" >"$tmp"
  cat "$tmp" >"$file"
  rm -f "$tmp"
fi
