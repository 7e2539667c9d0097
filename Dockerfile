# One image for every service; the arguments pick which one runs (CMD, replaced by
# the Kubernetes manifests' `args:` or what follows the image in `docker run`):
#   node services/api/dist/main.js | services/checker/dist/main.js |
#   services/webhook-dispatcher/dist/main.js | services/edge-proxy/dist/main.js |
#   services/all-in-one/dist/main.js (default) ; `cdctl migrate` for the migration Job.
# They always run under the ENTRYPOINT, tini, so manifests set `args:`, never
# `command:` (which would replace tini).
# pg_dump is the PostgreSQL project's (PGDG) postgresql-client-17: pg_dump refuses
# servers newer than itself and Debian bookworm's is 15; 17 dumps 15, 16 and 17
# (docs/deploy.md, "The container image").
# Build: docker build -t custom-domain-service .

FROM node:24-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 compiles from source against Node.js 24.18.1's headers, as `make`
# builds it (the Makefile's NODE_HEADERS_VERSION says why): built against later 24.x
# headers it aborts the process when V8 collects its statements.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY scripts/install-node.sh scripts/
RUN bash scripts/install-node.sh --headers 24.18.1 /opt/node-headers
ENV npm_config_nodedir=/opt/node-headers npm_config_build_from_source=better-sqlite3
COPY package.json package-lock.json ./
COPY libs/ libs/
COPY services/ services/
# The workspace of the typed client: npm ci wants every workspace of the lock file, tsc -b builds it.
COPY clients/ clients/
COPY tsconfig.base.json tsconfig.build.json ./
# npm ci alone: the image holds exactly the lock file's versions or is not built.
RUN npm ci --no-audit --no-fund \
 && npx tsc -b tsconfig.build.json \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf libs/*/src services/*/src

FROM node:24-bookworm-slim AS runtime
# pg_dump for GET /operator/v1/backup and the chart's backup CronJob; tini reaps
# children (pg_dump) and forwards SIGTERM. The PGDG signing key comes over HTTPS
# (node's fetch: the slim image has no curl) and apt checks the repository with it.
ARG PG_CLIENT_MAJOR=17
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ca-certificates \
 && node -e "fetch('https://www.postgresql.org/media/keys/ACCC4CF8.asc').then(async (r) => { if (!r.ok) throw new Error('PGDG key: HTTP ' + r.status); require('fs').writeFileSync('/usr/share/keyrings/pgdg.asc', await r.text()); })" \
 && echo "deb [signed-by=/usr/share/keyrings/pgdg.asc] https://apt.postgresql.org/pub/repos/apt bookworm-pgdg main" > /etc/apt/sources.list.d/pgdg.list \
 && apt-get update \
 && apt-get install -y --no-install-recommends postgresql-client-${PG_CLIENT_MAJOR} \
 && pg_dump --version | grep -q " ${PG_CLIENT_MAJOR}\." \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /src/package.json ./
COPY --from=build --chown=root:root /src/node_modules/ node_modules/
COPY --from=build --chown=root:root /src/libs/ libs/
COPY --from=build --chown=root:root /src/services/ services/
RUN ln -s /app/services/cli/bin/cdctl.js /usr/local/bin/cdctl \
 && mkdir -p /app/data && chown node:node /app/data
# The image's own "node" user (uid 1000); the code is owned by root, so it cannot be changed at run time.
USER 1000:1000
EXPOSE 8080 8081 8443 9464
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "services/all-in-one/dist/main.js"]
