#!/usr/bin/env bash
# Builds helm-render offline from Debian's Go packages (golang-go,
# golang-github-masterminds-sprig-dev, golang-gopkg-yaml.v3-dev), which install
# their sources under /usr/share/gocode: GOPATH mode, no module download.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/bin/helm-render}"
mkdir -p "$(dirname "$out")"
cd "$here"
GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOCACHE="${GOCACHE:-$here/.cache}" go build -o "$out" .
