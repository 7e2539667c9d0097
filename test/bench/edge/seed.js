// Seeds the throwaway database of `make bench-edge` (run.sh provides it, migrated)
// with what the edge needs to serve one hostname with every feature on:
//   - an application whose proxied-request limits are far above anything the
//     bench can send (the limiter still runs on every request, it never binds);
//   - its active origin (the origin nginx of the bench);
//   - a `ready` domain for the hostname with its four checks passing;
//   - the hostname's certificate (leaf + CA chain, key sealed with
//     DATA_ENCRYPTION_KEY like the checker stores it).
// No assertion key: the edge signs with the deployment key then.
// Env: BENCH_DATABASE_URL, DATA_ENCRYPTION_KEY (base64), BENCH_HOSTNAME,
// BENCH_ORIGIN_URL, BENCH_TLS_DIR (leaf.pem, leaf.key, ca.pem).
'use strict';
const { randomUUID } = require('node:crypto');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { CHECK_TYPES, encryptSecret, generateChallengeToken, resolveLimits, SEAL_PURPOSES } = require('@cds/core');
const { createDataStore } = require('@cds/data');

const UNBOUND = 1e9;

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run test/bench/edge/run.sh)`);
  return value;
}

async function main() {
  const url = required('BENCH_DATABASE_URL');
  const dataKey = Buffer.from(required('DATA_ENCRYPTION_KEY'), 'base64');
  const hostname = required('BENCH_HOSTNAME');
  const originUrl = required('BENCH_ORIGIN_URL');
  const tlsDir = required('BENCH_TLS_DIR');
  const tls = (file) => readFileSync(path.join(tlsDir, file), 'utf8');
  const leafPem = tls('leaf.pem');
  const now = new Date();
  const day = 24 * 3600 * 1000;

  const app = {
    id: randomUUID(),
    slug: 'bench',
    name: 'Bench',
    status: 'active',
    plan: 'free',
    contactEmail: null,
    limits: resolveLimits('free', {
      live_domains: 1000,
      api_requests_per_minute: UNBOUND,
      proxied_requests_per_minute: UNBOUND,
      proxied_requests_per_second: UNBOUND,
      fair_use_bytes_per_month: 1e15,
    }),
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const origin = {
    id: randomUUID(),
    applicationId: app.id,
    url: originUrl,
    healthPath: '/',
    status: 'active',
    lastVerifiedAt: now,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  };
  const domain = {
    id: randomUUID(),
    applicationId: app.id,
    hostname,
    reference: 'bench',
    status: 'ready',
    challengeToken: generateChallengeToken(),
    metadata: {},
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    nextCheckAt: new Date(now.getTime() + day), // no checker runs during the bench anyway
  };
  const checks = CHECK_TYPES.map((type) => ({
    domainId: domain.id, type, status: 'passing', errorCode: null, message: null, observedAt: now, nextCheckAt: null,
  }));
  const certificate = {
    hostname,
    domainId: domain.id,
    issuer: 'internal',
    pemChain: leafPem.trimEnd() + '\n' + tls('ca.pem'),
    keySealed: encryptSecret(tls('leaf.key'), dataKey, { purpose: SEAL_PURPOSES.certificateKey, id: hostname }),
    notBefore: new Date(now.getTime() - day),
    notAfter: new Date(now.getTime() + day),
    createdAt: now,
  };

  const store = await createDataStore({ url, logger: { info: () => undefined, warn: (msg, meta) => console.warn(msg, meta ?? '') } });
  try {
    await store.transaction(async (r) => {
      await r.applications.insert(app);
      await r.origins.insert(origin);
      await r.domains.insert(domain, checks);
      await r.certificates.save(certificate);
    });
  } finally {
    await store.close();
  }
  console.log(JSON.stringify({ application_id: app.id, domain_id: domain.id, origin_id: origin.id }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
