#!/usr/bin/env bash
# What `make demo` needs besides Node.js and the build: pebble-challtestsrv
# (Debian's pebble package) as the DNS server, curl (with HTTP/2) for the
# visitor, openssl for the webhook receiver's certificate. Missing ones are
# installed from Debian's packages, as scripts/ensure-services.sh does.
set -euo pipefail
need_apt=()
[ -x /usr/bin/pebble-challtestsrv ] || need_apt+=(pebble)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing ${need_apt[*]} (Debian packages)"
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "installing ${need_apt[*]} needs root: run 'apt-get install -y ${need_apt[*]}' as root, then make demo again" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
curl --version | grep -qw HTTP2 || { echo "this curl has no HTTP/2 support (libcurl without nghttp2): the demo's HTTP/2 visit needs it" >&2; exit 1; }
