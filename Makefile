# Two commands set everything up on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.install-stamp

.PHONY: help deps build run demo test test-unit test-integration lint typecheck docs services bench bench-api bench-checker bench-webhooks clean

help:
	@echo "make run    start the all-in-one service (SQLite, in-process bus)"
	@echo "make demo   see it work: a hostname registered, checked, certified and served here (DEMO_EXIT=1 exits when done)"
	@echo "make test   build, lint and run every test (PostgreSQL, SQLite, RabbitMQ)"
	@echo "make bench  run the benchmarks under test/bench"
	@echo "make test-system  the split-mode deployment under faults (SYSTEM_SEED=<n> replays a run)"

# npm 11 set to omit resolved URLs writes lock files without other platforms'
# optional packages, which `npm ci` then refuses; `npm install` from the same
# lock installs the same versions.
$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund || { echo "npm ci refused the lock file; installing from it with npm install"; npm install --no-audit --no-fund; }
	@touch $@

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

test: build services
	bash scripts/test.sh

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
