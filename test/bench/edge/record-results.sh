#!/usr/bin/env bash
# Replaces the results of `make bench-edge` in docs/benchmarks.md: everything
# between the bench-edge:results markers becomes the given block (the last run
# only). Creates the section at the end of the file when the markers are missing.
# Usage: record-results.sh <markdown file> <file holding the new block>
set -euo pipefail
file=$1
block=$2
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
