// The edge without a bus: the change feed alone brings every change within
// the 5-second rules (DECISIONS §5), suspension pages, and database reads that
// follow changes and new names, not traffic: random names, Hosts and ACME
// tokens cost a bounded number of reads, and hot hostnames none.
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import tls from 'node:tls';
import { decodeProtectedHeader } from 'jose';
import { encryptSecret, generateAssertionKey } from '@cds/core';
import type { EdgeObserver } from '@cds/edge-proxy';
import { eventually } from '../../support/eventually';
import { aDomain, checksFor } from '../data/data-fixtures';
import { DATA_KEY, startEdgeFixture, startRecordingOrigin, type EdgeFixture } from './edge-fixture';

type Purpose = 'route' | 'certificate' | 'key' | 'challenge' | 'feed' | 'names';

let f: EdgeFixture;
let app: { id: string; slug: string };
const reads: Record<Purpose, number> = { route: 0, certificate: 0, key: 0, challenge: 0, feed: 0, names: 0 };
const observer = {
  answered() {}, cacheLookup() {}, limited() {}, controlPlane() {}, connectionRefused() {},
  databaseRead(purpose: Purpose) {
    reads[purpose] += 1;
  },
} as unknown as EdgeObserver;

const snapshot = () => ({ ...reads });
const since = (before: Record<Purpose, number>, ...purposes: Purpose[]) => purposes.reduce((sum, p) => sum + reads[p] - before[p], 0);
const randomName = () => `r${randomBytes(6).toString('hex')}.random.example`;

beforeAll(async () => {
  // Every flooding client comes from 127.0.0.1: the cap per client address must not be what refuses them.
  f = await startEdgeFixture({ bus: undefined, observer, maxConnectionsPerClient: 10_000 });
  app = await f.addApplication();
  // LiveNames is loaded once the feed has read twice after its first page.
  await eventually('the live names loaded', () => reads.names >= 1, { timeoutMs: 5_000 });
  const feedReads = reads.feed;
  await eventually('two more feed reads', () => reads.feed >= feedReads + 2, { timeoutMs: 5_000 });
});
afterAll(() => f.close());

/** Milliseconds until `probe` holds (polled every 100 ms), failing after 5 s. */
async function within5s(what: string, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  await eventually(what, async () => probe().catch(() => false), { timeoutMs: 5_000, intervalMs: 100 });
  return Date.now() - started;
}

const statusOf = async (hostname: string) => (await f.get(hostname)).status;

function refusedHandshake(servername: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: f.edge.httpsPort, servername, ca: f.caPem, ALPNProtocols: ['http/1.1'] }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });
}

describe('without a bus, the change feed brings every change within 5 s', () => {
  it('serves a domain that turns ready, and stops when it leaves ready', async () => {
    const d = await f.addDomain(app.id, { status: 'pending_dns' });
    expect(await statusOf(d.hostname)).toBe(503);
    await f.store.run((r) => r.domains.update(app.id, d.id, { status: 'ready', updatedAt: new Date() }));
    expect(await within5s('200', async () => (await statusOf(d.hostname)) === 200)).toBeLessThan(5_000);
    await f.store.run((r) => r.domains.update(app.id, d.id, { status: 'attention_required', updatedAt: new Date() }));
    expect(await within5s('503', async () => (await statusOf(d.hostname)) === 503)).toBeLessThan(5_000);
  });

  it('knows a new domain (503) that was unknown a moment before, even with the reads for unknown names spent', async () => {
    const hostname = randomName();
    expect((await f.plain(hostname)).status).toBe(404);
    // Spend the budget of reads for unknown names: the name then comes by the feed alone.
    await Promise.all(Array.from({ length: 60 }, () => f.plain(randomName())));
    const domain = aDomain(app.id, { hostname, status: 'pending_dns' });
    await f.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    expect(await within5s('503 for the new name', async () => (await f.plain(hostname)).status === 503)).toBeLessThan(5_000);
  });

  it('forwards to a newly activated origin', async () => {
    const other = await startRecordingOrigin();
    try {
      const d = await f.addDomain(app.id);
      expect(await statusOf(d.hostname)).toBe(200);
      const now = new Date();
      const id = randomUUID();
      await f.store.transaction(async (r) => {
        const active = await r.origins.findActive(app.id);
        await r.origins.insert({ id, applicationId: app.id, url: other.url, healthPath: '/', status: 'verified', lastVerifiedAt: now, lastError: null, createdAt: now, updatedAt: now });
        await r.origins.update(app.id, active!.id, { status: 'verified', updatedAt: now });
        await r.origins.update(app.id, id, { status: 'active', updatedAt: now });
      });
      expect(await within5s('a request at the new origin', async () => {
        await f.get(d.hostname, '/which-origin');
        return other.requests.some((req) => req.url === '/which-origin');
      })).toBeLessThan(5_000);
      // Back to the fixture's origin for the other tests.
      await f.store.transaction(async (r) => {
        const active = await r.origins.findActive(app.id);
        const origins = await r.origins.list(app.id);
        const first = origins.find((o) => o.url === f.origin.url)!;
        await r.origins.update(app.id, active!.id, { status: 'verified', updatedAt: new Date() });
        await r.origins.update(app.id, first.id, { status: 'active', updatedAt: new Date() });
      });
      await within5s('the first origin again', async () => {
        const before = f.origin.requests.length;
        await f.get(d.hostname, '/back');
        return f.origin.requests.length > before;
      });
    } finally {
      await other.close();
    }
  });

  it('signs with a new application key, and stops signing with it within 2 s of its revocation', async () => {
    const d = await f.addDomain(app.id);
    const kidOf = async () => {
      const before = f.origin.requests.length;
      expect(await statusOf(d.hostname)).toBe(200);
      return decodeProtectedHeader(f.origin.requests[before]?.headers['x-custom-domain-assertion'] as string).kid;
    };
    expect(await kidOf()).toBe('deployment');
    const key = generateAssertionKey();
    await f.store.run((r) => r.assertionKeys.insert({ kid: key.kid, applicationId: app.id, secretSealed: encryptSecret(key.secret, DATA_KEY, { purpose: 'assertion-key', id: key.kid }), createdAt: new Date(), revokedAt: null }));
    expect(await within5s('the application key', async () => (await kidOf()) === key.kid)).toBeLessThan(5_000);
    await f.store.run((r) => r.assertionKeys.revoke(app.id, key.kid, new Date()));
    expect(await within5s('the deployment key', async () => (await kidOf()) === 'deployment')).toBeLessThan(2_000);
  });

  it('answers 503 with Retry-After saying the service is suspended, over TLS and plain HTTP, and serves again after reactivation', async () => {
    const own = await f.addApplication();
    const d = await f.addDomain(own.id);
    expect(await statusOf(d.hostname)).toBe(200);
    await f.store.run((r) => r.applications.update(own.id, { status: 'suspended', updatedAt: new Date() }));
    expect(await within5s('503 suspended', async () => (await statusOf(d.hostname)) === 503)).toBeLessThan(5_000);
    const answer = await f.get(d.hostname);
    expect(answer.headers['retry-after']).toBeDefined();
    expect(answer.body).toMatch(/suspended/i);
    const plain = await f.plain(d.hostname);
    expect(plain.status).toBe(503);
    expect(plain.headers['retry-after']).toBeDefined();
    expect(plain.body).toMatch(/suspended/i);
    await f.store.run((r) => r.applications.update(own.id, { status: 'active', updatedAt: new Date() }));
    expect(await within5s('200 again', async () => (await statusOf(d.hostname)) === 200)).toBeLessThan(5_000);
  });
});

describe('database reads', () => {
  it('random SNI names, Hosts and ACME tokens cost a bounded number of reads, and a ready domain is served throughout', async () => {
    const d = await f.addDomain(app.id);
    expect(await statusOf(d.hostname)).toBe(200);
    const N = 300;
    const before = snapshot();
    const started = Date.now();
    const refused = await Promise.all(Array.from({ length: N }, () => refusedHandshake(randomName())));
    expect(refused.every(Boolean)).toBe(true);
    const hosts = await Promise.all(Array.from({ length: N }, () => f.plain(randomName())));
    expect(hosts.every((a) => a.status === 404)).toBe(true);
    const tokens = await Promise.all(Array.from({ length: N }, () => f.plain(d.hostname, `/.well-known/acme-challenge/${randomBytes(16).toString('hex')}`)));
    expect(tokens.every((a) => a.status === 404)).toBe(true);
    const seconds = (Date.now() - started) / 1_000;
    const names = since(before, 'route', 'certificate');
    const challenges = since(before, 'challenge');
    // Per cache (routes, certificates): a burst of 20, then 5 a second; tokens: one batch read per 200 ms at most.
    expect(names).toBeLessThanOrEqual(2 * (20 + 5 * Math.ceil(seconds)));
    expect(challenges).toBeLessThanOrEqual(1 + 5 * Math.ceil(seconds));
    expect(names + challenges).toBeLessThan(N / 2);
    expect(await statusOf(d.hostname)).toBe(200);
  });

  it('1,000 hot hostnames requested again and again for 5 s cost the feed reads alone', async () => {
    const hostnames: string[] = [];
    await f.store.transaction(async (r) => {
      for (let i = 0; i < 1_000; i += 1) {
        const domain = aDomain(app.id, { hostname: `hot-${i}-${randomBytes(3).toString('hex')}.hot.example`, status: 'ready' });
        hostnames.push(domain.hostname);
        await r.domains.insert(domain, checksFor(domain.id));
      }
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const plain = (host: string) => new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: f.edge.httpPort, path: '/', headers: { host }, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    try {
      await within5s('every hot hostname served', async () => (await Promise.all(hostnames.map(plain))).every((status) => status === 308));
      // Two feed reads after the warm-up: the feed has brought the inserts' changes, which would drop entries the loop loads.
      const feedReads = reads.feed;
      await eventually('two feed reads after the warm-up', () => reads.feed >= feedReads + 2, { timeoutMs: 5_000 });
      const before = snapshot();
      const started = Date.now();
      let requests = 0;
      while (Date.now() - started < 5_000) {
        const statuses = await Promise.all(hostnames.map(plain));
        requests += statuses.length;
        expect(statuses.every((status) => status === 308)).toBe(true);
      }
      const seconds = (Date.now() - started) / 1_000;
      expect(requests).toBeGreaterThanOrEqual(1_000);
      // Per-hostname reloads would be thousands here; a few may come when a feed read is late on a
      // loaded machine (the caches then fall back to their own ages, DECISIONS §5's 5-second rules).
      expect(since(before, 'route', 'certificate', 'key', 'challenge', 'names')).toBeLessThanOrEqual(10);
      expect(since(before, 'feed') / seconds).toBeLessThanOrEqual(2);
    } finally {
      agent.destroy();
    }
  });
});
