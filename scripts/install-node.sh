#!/usr/bin/env bash
# Puts Node.js VERSION into DIR from the npm registry's node-linux-<arch> package,
# with whatever npm is on the PATH: bin/node and include/node, the headers node-gyp
# builds native modules against when npm_config_nodedir names DIR, with nothing
# else to download. With --headers, DIR keeps only include/ (the Makefile's
# .tools/node-headers, see NODE_HEADERS_VERSION there; the image's build stage).
# Usage: scripts/install-node.sh [--headers] VERSION DIR
set -euo pipefail
headers_only=false
if [ "${1:-}" = --headers ]; then headers_only=true; shift; fi
version=$1
dir=$2
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m): install Node.js ${version%%.*} and put it first on the PATH" >&2; exit 1 ;;
esac
command -v npm >/dev/null 2>&1 || { echo "fetching Node.js $version needs npm (any version) on the PATH" >&2; exit 1; }
echo "fetching Node.js $version (node-linux-$arch)$($headers_only && echo ", its headers") into $dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# `npm pack` checks the tarball against the registry's integrity hash.
(cd "$tmp" && npm pack --silent --no-audit --no-fund "node-linux-$arch@$version" >/dev/null)
mkdir "$tmp/node"
tar -xzf "$tmp/node-linux-$arch-$version.tgz" -C "$tmp/node" --strip-components=1
test -f "$tmp/node/include/node/node_version.h" || { echo "node-linux-$arch@$version has no include/node: node-gyp would have no headers" >&2; exit 1; }
got=$("$tmp/node/bin/node" --version)
[ "$got" = "v$version" ] || { echo "node-linux-$arch@$version runs as $got" >&2; exit 1; }
if $headers_only; then find "$tmp/node" -mindepth 1 -maxdepth 1 ! -name include -exec rm -rf {} +; fi
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$tmp/node" "$dir"
