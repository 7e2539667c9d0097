// Two real edge-proxy processes (split mode) over one database and RabbitMQ:
// proxied-request limits shared by both, the control plane on /readyz, a
// replaced certificate reaching both within 5 s, a revoked assertion key
// dropped by both within 2 s, one fair-use mail, a graceful SIGTERM, and
// traffic rows that hold every forwarded request exactly once. Split mode needs a database both processes share, which
// is PostgreSQL only (DECISIONS §1): like checker-kill.test.ts, this file uses
// PostgreSQL whatever TEST_DATABASE names, so every run checks the same things.
import { randomBytes, X509Certificate } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { InternalCa } from '@cds/checker';
import { ROUTING_KEYS, type Limits } from '@cds/core';
import type { DataStore } from '@cds/data';
import type { AmqpBus } from '@cds/messaging';
import { roomInWindow, startTestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { anApplication } from '../data/data-fixtures';
import { DATA_KEY, DEPLOYMENT_KEY, type RecordingOrigin } from './edge-fixture';
import { metricValue, startEdgeProcess, type EdgeProcess, type EdgeReply } from './edge-process';
import { startEdgeProcessWorld, type EdgeProcessWorld } from './edge-process-world';
import { saveCertificate, seedServedDomain } from './served-domain';
import { startSmtpSink, type SmtpSink } from './smtp-sink';

const FROM = 'Custom Domains <notices@edge-processes.example>';
const DAY_MS = 86_400_000;

interface TestApplication {
  id: string;
  slug: string;
  domainId: string;
  hostname: string;
}

let world: EdgeProcessWorld;
let store: DataStore;
let ca: InternalCa;
let origin: RecordingOrigin;
let sink: SmtpSink;
let bus: AmqpBus;
let caPem: string;
let edges: EdgeProcess[] = [];
/** What every application should find in traffic_daily in the end: each answer the edges forwarded, with its body bytes. */
const forwarded = new Map<string, { slug: string; requests: number; bytes: number }>();

beforeAll(async () => {
  world = await startEdgeProcessWorld('edge-processes-test');
  ({ store, ca, caPem, origin, bus } = world);
  sink = await startSmtpSink();
  const env = world.env({ SMTP_URL: sink.url, SMTP_FROM: FROM });
  edges = await Promise.all([startEdgeProcess(env, caPem), startEdgeProcess(env, caPem)]);
});

afterAll(async () => {
  for (const edge of edges) edge.kill();
  await sink?.close();
  await world?.close();
});

const edge = (i: number): EdgeProcess => edges[i % 2] as EdgeProcess;

/** An application with the recording origin active and a ready domain with a certificate from the internal CA. */
async function addApplication(limits: Partial<Limits>, contactEmail = 'ops@example.com'): Promise<TestApplication> {
  const app = anApplication({ contactEmail });
  app.limits = { ...app.limits, ...limits };
  const { domain } = await seedServedDomain(store, ca, DATA_KEY, origin.url, { app, domain: { reference: `proc-${randomBytes(3).toString('hex')}` } });
  forwarded.set(app.id, { slug: app.slug, requests: 0, bytes: 0 });
  return { id: app.id, slug: app.slug, domainId: domain.id, hostname: domain.hostname };
}

/** A request through edge `i`; answers from the origin (200) are noted as traffic the edges must count. */
async function send(i: number, app: TestApplication, path: string, opts?: Parameters<EdgeProcess['get']>[2]): Promise<EdgeReply> {
  const reply = await edge(i).get(app.hostname, path, opts);
  if (reply.status === 200) {
    const sum = forwarded.get(app.id) as { requests: number; bytes: number };
    sum.requests += 1;
    sum.bytes += reply.body.length;
  }
  return reply;
}

async function rejections(i: number, limiter: string): Promise<number> {
  return metricValue((await edge(i).ops('/metrics')).body, 'cds_limiter_rejections_total', { server: 'edge', limiter });
}

function expectRefusals(replies: EdgeReply[], retryAfter: (value: number) => boolean): void {
  for (const refused of replies.filter((r) => r.status !== 200)) {
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(retryAfter(Number(refused.headers['retry-after']))).toBe(true);
  }
}

/** The traffic_daily rows of yesterday and today (a run may cross midnight UTC), added up. */
async function storedTraffic(applicationId: string): Promise<{ requests: number; bytes: number }> {
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
  const rows = await store.run((r) => r.traffic.range(applicationId, yesterday, today));
  return rows.reduce((sum, row) => ({ requests: sum.requests + row.requests, bytes: sum.bytes + row.responseBytes }), { requests: 0, bytes: 0 });
}

/** The SHA-256 fingerprint of the certificate edge `i` presents in a new TLS handshake for `hostname`. */
function presentedCertificate(i: number, hostname: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: edge(i).httpsPort, servername: hostname, ca: caPem }, () => {
      const { fingerprint256 } = socket.getPeerCertificate();
      socket.destroy();
      resolve(fingerprint256);
    });
    socket.on('error', reject);
  });
}

/** Saves a new certificate for the domain (replacing its row); the fingerprint of its leaf. */
async function replaceCertificate(app: TestApplication): Promise<string> {
  return new X509Certificate(await saveCertificate(store, ca, DATA_KEY, { id: app.domainId, hostname: app.hostname })).fingerprint256;
}

/** The `kid` of the assertion edge `i` adds to a request for the application (the origin's copy). */
async function signingKid(i: number, app: TestApplication, path: string): Promise<string | undefined> {
  expect((await send(i, app, path)).status).toBe(200);
  const token = origin.lastAt(path, app.hostname).headers['x-custom-domain-assertion'];
  return typeof token === 'string' ? decodeProtectedHeader(token).kid : undefined;
}

it('both edges report the control plane reachable on /readyz and /metrics', async () => {
  for (const i of [0, 1]) {
    const ready = await edge(i).ops('/readyz');
    expect(ready.status).toBe(200);
    const body = JSON.parse(ready.body) as { ready: boolean; control_plane: { reachable: boolean } };
    expect(body.ready).toBe(true);
    expect(body.control_plane).toMatchObject({ reachable: true });
    expect(metricValue((await edge(i).ops('/metrics')).body, 'cds_edge_control_plane_reachable')).toBe(1);
  }
});

// Both limit tests expect the limit exactly. An edge refuses only once the shared
// count has reached the limit and its own reserved budget is spent; after that
// it reserves nothing more in the window. So when both edges refuse at least once,
// neither holds unspent budget (the "waste" of at most batch - 1 per replica is
// zero) and the requests let through are exactly the reservations granted: the limit.

it('proxied_requests_per_second = 20: of 60 requests across both edges within one clock second exactly 20 pass, the rest get 429 with Retry-After', async () => {
  const app = await addApplication({ proxied_requests_per_second: 20, proxied_requests_per_minute: 100_000 });
  // Route, certificate and assertion caches warm, and 5 kept-alive TLS connections per edge, in an earlier second.
  const warm = await Promise.all(Array.from({ length: 10 }, (_, i) => send(i, app, '/warm')));
  expect(warm.map((r) => r.status)).toEqual(Array(10).fill(200));

  const refused = [0, 0];
  let burst: Array<{ edge: number; reply: EdgeReply }> = [];
  let path = '';
  // The edges' window is the second in which they see a request; a burst counts
  // only when it left and came back within one second (else it is repeated).
  // Separate processes keep real time: no clock to move, so the burst waits for a second to begin.
  for (let attempt = 1; ; attempt++) {
    await sleep(1000 - (Date.now() % 1000) + 5);
    const second = Math.floor(Date.now() / 1000);
    path = `/burst-${attempt}`;
    burst = await Promise.all(Array.from({ length: 60 }, (_, i) => send(i, app, path).then((reply) => ({ edge: i % 2, reply }))));
    for (const { edge: i, reply } of burst) if (reply.status === 429) refused[i] = (refused[i] ?? 0) + 1;
    if (Math.floor(Date.now() / 1000) === second) break;
    if (attempt === 5) throw new Error('five bursts of 60 requests each took longer than a clock second');
  }

  const replies = burst.map((b) => b.reply);
  expect(replies.filter((r) => r.status === 200)).toHaveLength(20);
  expect(replies.filter((r) => r.status === 429)).toHaveLength(40);
  expectRefusals(replies, (seconds) => seconds === 1);
  for (const i of [0, 1]) expect(burst.filter((b) => b.edge === i && b.reply.status === 429).length).toBeGreaterThan(0);
  expect(origin.saw(path, app.hostname)).toBe(20);
  expect([await rejections(0, 'proxied_requests_per_second'), await rejections(1, 'proxied_requests_per_second')]).toEqual(refused);
});

it('proxied_requests_per_minute = 30: of 45 requests alternating between the edges exactly 30 pass, the rest get 429 with Retry-After ≤ 60', async () => {
  const app = await addApplication({ proxied_requests_per_second: 1000, proxied_requests_per_minute: 30 });
  // All 45 in one clock minute (separate processes keep real time: no clock to move).
  await roomInWindow(15);
  const minute = Math.floor(Date.now() / 60_000);
  const replies: EdgeReply[] = [];
  for (let i = 0; i < 45; i++) replies.push(await send(i, app, '/minute'));
  expect(Math.floor(Date.now() / 60_000)).toBe(minute);

  expect(replies.filter((r) => r.status === 200)).toHaveLength(30);
  expect(replies.filter((r) => r.status === 429)).toHaveLength(15);
  expectRefusals(replies, (seconds) => seconds >= 1 && seconds <= 60);
  const refused = [0, 1].map((i) => replies.filter((r, n) => n % 2 === i && r.status === 429).length);
  expect(Math.min(...refused)).toBeGreaterThan(0);
  expect(origin.saw('/minute', app.hostname)).toBe(30);
  expect([await rejections(0, 'proxied_requests_per_minute'), await rejections(1, 'proxied_requests_per_minute')]).toEqual(refused);
});

it('a replaced certificate reaches both edges (domain.changed fan-out and change feed): new handshakes present it within 5 s', async () => {
  const app = await addApplication({});
  const stored = await store.run((r) => r.certificates.find(app.hostname));
  const before = new X509Certificate(stored?.pemChain ?? '').fingerprint256;
  expect([await presentedCertificate(0, app.hostname), await presentedCertificate(1, app.hostname)]).toEqual([before, before]);

  const after = await replaceCertificate(app);
  expect(after).not.toBe(before);
  // The change feed also carries the new certificate within about a second, so
  // which path arrives first is a race; both must keep the 5-second rule.
  await bus?.publish(ROUTING_KEYS.domainChanged, { domain_id: app.domainId, hostname: app.hostname, application_id: app.id, change: 'certificate' });
  const published = Date.now();
  const took = await Promise.all([0, 1].map(async (i) => {
    await eventually(`edge ${i} to present the new certificate`, async () => (await presentedCertificate(i, app.hostname).catch(() => null)) === after, { timeoutMs: 5_000, intervalMs: 100 });
    return Date.now() - published;
  }));
  for (const ms of took) expect(ms).toBeLessThan(5_000);
  // Served over it too.
  for (const i of [0, 1]) expect((await send(i, app, '/after-renewal')).status).toBe(200);
});

it('an assertion key issued and revoked through the operator API: both edges sign with it, then with the deployment key within 2 s of the revocation', async () => {
  const app = await addApplication({});
  expect([await signingKid(0, app, '/key-0'), await signingKid(1, app, '/key-0')]).toEqual([DEPLOYMENT_KEY.kid, DEPLOYMENT_KEY.kid]);
  const api = await startTestApi({ DATA_ENCRYPTION_KEY: DATA_KEY.toString('base64'), ASSERTION_DEPLOYMENT_KEY: DEPLOYMENT_KEY.secret }, { url: world.db.url });
  try {
    const issued = await api.operator<{ kid: string; secret: string }>('POST', `/operator/v1/applications/${app.slug}/assertion-keys`, {});
    expect(issued.status).toBe(201);
    const { kid, secret } = issued.body;
    let n = 0;
    for (const i of [0, 1]) await eventually(`edge ${i} to sign with the new key`, async () => (await signingKid(i, app, `/key-${++n}`).catch(() => null)) === kid, { timeoutMs: 3_000, intervalMs: 100 });
    for (const i of [0, 1]) {
      const path = `/key-verified-${i}`;
      expect(await signingKid(i, app, path)).toBe(kid);
      const token = origin.lastAt(path).headers['x-custom-domain-assertion'] as string;
      await expect(jwtVerify(token, new TextEncoder().encode(secret), { issuer: 'custom-domain-service', audience: app.slug, algorithms: ['HS256'] })).resolves.toBeTruthy();
    }

    const revokeSent = Date.now();
    const revoked = await api.operator<{ kid: string; status: string }>('POST', `/operator/v1/applications/${app.slug}/assertion-keys/${kid}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ kid, status: 'revoked' });
    // Both edges are asked in turn from the revocation on; each must have moved to the deployment key within 2 s of it.
    const switchedAfter = await Promise.all([0, 1].map(async (i) => {
      await eventually(`edge ${i} to sign with the deployment key`, async () => (await signingKid(i, app, `/key-${++n}`).catch(() => null)) === DEPLOYMENT_KEY.kid, { timeoutMs: 2_000, intervalMs: 100 });
      return Date.now() - revokeSent;
    }));
    for (const ms of switchedAfter) expect(ms).toBeLessThan(2_000);
    // And the revoked key never again, on either edge.
    for (let round = 0; round < 5; round++) {
      for (const i of [0, 1]) expect(await signingKid(i, app, `/key-${++n}`)).toBe(DEPLOYMENT_KEY.kid);
    }
  } finally {
    await api.close();
  }
});

it('sends one fair-use mail when bytes through both edges pass fair_use_bytes_per_month, and no second one after more traffic', async () => {
  const app = await addApplication({ fair_use_bytes_per_month: 1000 }, 'owner@fair-use.example');
  const mails = () => sink.received.filter((mail) => mail.headers.subject?.includes(app.slug));

  const first = await Promise.all([send(0, app, '/bytes/600'), send(1, app, '/bytes/600')]);
  expect(first.map((r) => [r.status, r.body.length])).toEqual([[200, 600], [200, 600]]);
  // Each edge flushes every 5 s and then checks the month's bytes.
  await eventually('the fair-use mail', () => mails().length > 0, { timeoutMs: 15_000 });
  expect(mails()).toHaveLength(1);
  expect(mails()[0]).toMatchObject({ rcptTo: ['owner@fair-use.example'], mailFrom: 'notices@edge-processes.example' });

  const more = await Promise.all([send(0, app, '/bytes/600'), send(1, app, '/bytes/600')]);
  expect(more.map((r) => r.status)).toEqual([200, 200]);
  // Both edges have flushed the new bytes (and checked them), a moment for a mail in flight.
  await eventually('both edges to flush the new bytes', async () => (await storedTraffic(app.id)).requests === 4, { timeoutMs: 15_000 });
  await sleep(1500); // no second mail, not even one in flight: the quiet is what is checked
  expect(mails()).toHaveLength(1);
});

describe('SIGTERM', () => {
  let app: TestApplication;

  it('lets a request in flight finish with 200, refuses new connections, turns readiness off and exits 0', async () => {
    app = await addApplication({});
    // Known byte counts through both edges, counted when both have stopped (next test).
    const sizes = [1, 10, 100, 999, 4096, 70_001];
    const replies = await Promise.all(sizes.flatMap((n) => [send(0, app, `/bytes/${n}`), send(1, app, `/bytes/${n + 1}`)]));
    expect(replies.map((r) => r.body.length)).toEqual(sizes.flatMap((n) => [n, n + 1]));

    const draining = edge(1);
    const slow = send(1, app, '/slow/1500', { agent: false });
    await eventually('the slow request at the origin', () => origin.saw('/slow/1500', app.hostname) === 1, { timeoutMs: 3_000 });
    const exitCode = draining.terminate();
    // Readiness goes off first, then the listeners close.
    await eventually('readiness off', async () => (await draining.ops('/readyz').catch(() => null))?.status === 503, { timeoutMs: 3_000 });
    const late = await draining.get(app.hostname, '/late', { agent: false }).then(
      (reply) => `answered ${reply.status}`,
      (err: NodeJS.ErrnoException) => err.code,
    );
    expect(['ECONNREFUSED', 'ECONNRESET']).toContain(late);
    const ready = await draining.ops('/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ ready: false });

    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('slow');
    expect(await exitCode).toBe(0);
    expect(origin.saw('/late', app.hostname)).toBe(0);
    // The other edge still serves.
    expect((await send(0, app, '/after')).status).toBe(200);
  });

  it('leaves traffic_daily with exactly the requests and response bytes both edges forwarded, the drained one included', async () => {
    expect(await edge(0).terminate()).toBe(0);
    // 6 sized answers through each edge, the drained one, and one after the other edge stopped.
    expect(forwarded.get(app.id)).toEqual({ slug: app.slug, requests: 14, bytes: 2 * (1 + 10 + 100 + 999 + 4096 + 70_001) + 6 + 'slow'.length + 'origin /after'.length });
    const api = await startTestApi({}, { url: world.db.url });
    try {
      for (const [applicationId, expected] of forwarded) {
        expect({ slug: expected.slug, ...(await storedTraffic(applicationId)) }).toEqual(expected);
        const report = await api.operator<{ totals: { requests: number; response_bytes: number } }>('GET', `/operator/v1/applications/${expected.slug}/traffic?days=2`);
        expect(report.status).toBe(200);
        expect(report.body.totals).toEqual({ requests: expected.requests, response_bytes: expected.bytes });
      }
    } finally {
      await api.close();
    }
  });
});
