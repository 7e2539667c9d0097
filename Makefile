# Two commands set everything up on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# Node.js 24, the LTS everything runs on (package.json "engines", the Dockerfile's
# base images). The node on the PATH serves when it is that major; otherwise make
# fetches NODE_VERSION once from the npm registry into .tools/node
# (scripts/install-node.sh) and puts it first on the PATH of every target.
NODE_MAJOR := 24
NODE_VERSION := 24.21.0
# Native modules (better-sqlite3) compile here, offline, against the headers of
# NODE_HEADERS_VERSION (fetched the same way into .tools/node-headers; the
# nodedir of an npmrc is overridden). From 24.19.0 on, node_object_wrap.h, which
# is compiled into each addon, removes a cleanup hook in ObjectWrap's destructor
# and aborts the process when V8 collects a wrapped object outside any context
# (Node.js issue 65446): better-sqlite3 12 aborts so while collecting statements.
# Built against 24.18.1's headers, the addon runs on every Node.js 24.
NODE_HEADERS_VERSION := 24.18.1
NODE_HEADERS := $(CURDIR)/.tools/node-headers
NODE_HEADERS_FETCHED := $(NODE_HEADERS)/.fetched-$(NODE_HEADERS_VERSION)
export npm_config_nodedir := $(NODE_HEADERS)
export npm_config_build_from_source := better-sqlite3
PATH_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null)
ifeq ($(PATH_NODE_MAJOR),$(NODE_MAJOR))
NODE_FETCHED :=
else
NODE_HOME := $(CURDIR)/.tools/node
NODE_FETCHED := $(NODE_HOME)/.fetched-$(NODE_VERSION)
export PATH := $(NODE_HOME)/bin:$(PATH)
endif
# node_modules holds native code built against one Node.js's headers: other headers reinstall it.
NPM_STAMP := node_modules/.install-stamp-node$(NODE_HEADERS_VERSION)

.PHONY: help node-env deps build run demo test image test-unit test-integration lint typecheck docs services bench bench-api bench-checker bench-webhooks clean

help:
	@echo "make run    start the all-in-one service (SQLite, in-process bus)"
	@echo "make demo   see it work: a hostname registered, checked, certified and served here (DEMO_EXIT=1 exits when done)"
	@echo "make test   build, lint and run every test (PostgreSQL, SQLite, RabbitMQ)"
	@echo "make image  build the container image (Dockerfile) when a container engine runs"
	@echo "make bench  run the benchmarks under test/bench"
	@echo "make test-system  the split-mode deployment under faults (SYSTEM_SEED=<n> replays a run)"
	@echo "make node-env     the PATH of make's Node.js $(NODE_MAJOR) for this shell: eval \"\$$(make -s node-env)\""

# Only `npm ci`: exactly the lock file's versions, or a failure. `npm install`
# would resolve again and could install what no one reviewed. The lock file holds
# every platform's optional packages (an npm 11 set to omit resolved URLs once
# wrote it without them, and `npm ci` refused it): when npm ci says it is out of
# sync, regenerate it with `npm install --package-lock-only` and commit it.
# (npm ci empties node_modules itself; the rm also drops native modules built
# against other headers when npm ci fails half-way.)
$(NPM_STAMP): package.json package-lock.json | $(NODE_FETCHED) $(NODE_HEADERS_FETCHED)
	@echo "installing node_modules with node $$(node --version), native modules against the headers of $(NODE_HEADERS_VERSION)"
	rm -rf node_modules
	npm ci --no-audit --no-fund
	@touch $@

$(NODE_FETCHED):
	bash scripts/install-node.sh $(NODE_VERSION) $(NODE_HOME) >&2
	@touch $@

$(NODE_HEADERS_FETCHED):
	bash scripts/install-node.sh --headers $(NODE_HEADERS_VERSION) $(NODE_HEADERS) >&2
	@touch $@

# `eval "$$(make -s node-env)"` puts the fetched Node.js first on a shell's PATH,
# for what runs outside make (npx cdctl, npm start): node_modules is built for it.
node-env: | $(NODE_FETCHED)
	@$(if $(NODE_FETCHED),echo 'export PATH="$(NODE_HOME)/bin:$$PATH"',true)

deps: $(NPM_STAMP)

# The demo (scripts/demo) is built beside the services; the image's build (Dockerfile) leaves it out.
build: deps
	npx tsc -b tsconfig.build.json scripts/demo

run: build
	node services/all-in-one/dist/main.js

# Everything on loopback, in a temporary directory, until Ctrl-C (scripts/demo/main.ts).
demo: build
	@bash scripts/demo/install-tools.sh
	@node scripts/demo/dist/main.js

typecheck: deps
	npx tsc -p tsconfig.json

lint: deps
	npx eslint --max-warnings 0 .

docs: build
	node scripts/gen-config-doc.js > docs/configuration.md

services:
	bash scripts/ensure-services.sh

# Then the image, when a container engine answers `docker info` (scripts/build-image.sh
# prints one line saying why it is skipped otherwise).
test: build services
	@status=0; bash scripts/test.sh || status=1; bash scripts/build-image.sh || status=1; exit $$status

image:
	bash scripts/build-image.sh

test-unit: build
	npx jest --selectProjects unit

test-integration: build services
	TEST_DATABASE=postgres npx jest --selectProjects integration
	TEST_DATABASE=sqlite npx jest --selectProjects integration

bench: bench-api bench-checker bench-webhooks

bench-api: build services
	bash test/bench/api/run.sh

bench-checker: build services
	bash test/bench/checker/run.sh

bench-webhooks: build services
	bash test/bench/webhooks/run.sh

clean:
	rm -rf node_modules libs/*/dist services/*/dist clients/*/dist scripts/demo/dist

# Edge proxy against nginx and Caddy as the same reverse proxy (docs/benchmarks.md).
.PHONY: bench-edge
bench: bench-edge

bench-edge: build services
	bash test/bench/edge/run.sh

# Housekeeping of a million-row backlog under POST /v1/domains load (docs/benchmarks.md).
.PHONY: bench-housekeeping
bench: bench-housekeeping

bench-housekeeping: build services
	bash test/bench/housekeeping/run.sh

# The edge's database reads under random-name floods and many hot hostnames (docs/benchmarks.md).
.PHONY: bench-edge-names
bench: bench-edge-names

bench-edge-names: build services
	bash test/bench/edge/names.sh

# The whole split-mode deployment under faults, from the built output (docs/reliability.md).
# SYSTEM_SEED=<n> replays a run's workload and fault schedule; `make test` runs it too.
.PHONY: test-system

test-system: build services
	npx jest --selectProjects system --runInBand

# How each operation's cost grows from 1,000 domains to 1,100,000 on one PostgreSQL (docs/benchmarks.md).
.PHONY: bench-scale
bench: bench-scale

bench-scale: build services
	bash test/bench/scale/run.sh
