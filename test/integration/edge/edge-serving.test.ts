// The edge over real TLS with certificates from the checker's internal CA:
// SNI, Host, routing, forwarding rules, the assertion, errors and pages.
import { randomUUID, X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import WebSocket from 'ws';
import { encryptSecret, generateAssertionKey, ROUTING_KEYS } from '@cds/core';
import { eventually } from '../../support/eventually';
import { DATA_KEY, DEPLOYMENT_KEY, startEdgeFixture, type EdgeFixture } from './edge-fixture';
import { saveCertificate } from './served-domain';

let f: EdgeFixture;
let app: { id: string; slug: string };

beforeAll(async () => {
  f = await startEdgeFixture();
  app = await f.addApplication();
});
afterAll(() => f.close());

function handshake(servername: string | undefined): Promise<tls.PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: f.edge.httpsPort, ca: f.caPem, ...(servername === undefined ? {} : { servername }), ALPNProtocols: ['http/1.1'] }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert);
    });
    socket.on('error', reject);
  });
}

describe('TLS', () => {
  it('picks the certificate by SNI', async () => {
    const a = await f.addDomain(app.id);
    const b = await f.addDomain(app.id);
    expect((await handshake(a.hostname)).subject.CN).toBe(a.hostname);
    expect((await handshake(b.hostname)).subject.CN).toBe(b.hostname);
    const answer = await f.get(b.hostname);
    expect(answer.status).toBe(200);
    expect(answer.certificate.subject.CN).toBe(b.hostname);
  });

  it('refuses the handshake for an unknown name, a name without a certificate, and no SNI, showing no certificate', async () => {
    const noCert = await f.addDomain(app.id, { certificate: false });
    for (const name of ['unknown.example.org', noCert.hostname, undefined]) {
      await expect(handshake(name)).rejects.toThrow(/alert|ECONNRESET|socket disconnected|handshake/i);
    }
  });

  it('speaks TLS 1.2 and 1.3 only, and h2 (then http/1.1) by ALPN', async () => {
    const d = await f.addDomain(app.id);
    await expect(new Promise((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: f.edge.httpsPort, servername: d.hostname, ca: f.caPem, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => resolve(s));
      s.on('error', reject);
    })).rejects.toThrow();
    const protocol = await new Promise<string | false | null>((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: f.edge.httpsPort, servername: d.hostname, ca: f.caPem, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
        resolve(s.alpnProtocol);
        s.end();
      });
      s.on('error', reject);
    });
    expect(protocol).toBe('h2');
  });

  it('presents a replaced certificate in new handshakes within 5 s of its domain.changed message', async () => {
    const d = await f.addDomain(app.id);
    const before = (await handshake(d.hostname)).fingerprint256;
    const after = new X509Certificate(await saveCertificate(f.store, f.ca, DATA_KEY, d)).fingerprint256;
    expect(after).not.toBe(before);
    // No check that the cached one is still presented here: the change feed (once a second) may already have dropped it.
    await f.bus.publish(ROUTING_KEYS.domainChanged, { domain_id: d.id, hostname: d.hostname, application_id: app.id, change: 'certificate' });
    const published = Date.now();
    await eventually('the replaced certificate in a new handshake', async () => (await handshake(d.hostname).catch(() => null))?.fingerprint256 === after, { timeoutMs: 5_000, intervalMs: 100 });
    expect(Date.now() - published).toBeLessThan(5_000);
    expect((await f.get(d.hostname)).certificate.fingerprint256).toBe(after);
  });
});

describe('routing', () => {
  it('answers 421 when Host names another site than SNI (port ignored)', async () => {
    const a = await f.addDomain(app.id);
    const b = await f.addDomain(app.id);
    const wrong = await f.get(a.hostname, '/', { host: b.hostname });
    expect(wrong.status).toBe(421);
    expect(wrong.body).toMatch(/does not match/);
    expect((await f.get(a.hostname, '/', { host: `${a.hostname.toUpperCase()}:8443` })).status).toBe(200);
  });

  it('forwards a ready domain to the active origin, keeping Host and replacing forwarding headers', async () => {
    const d = await f.addDomain(app.id);
    const before = f.origin.requests.length;
    const answer = await f.get(d.hostname, '/path?q=1', {
      headers: {
        'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http', forwarded: 'for=6.6.6.6',
        'x-custom-domain-assertion': 'spoofed', connection: 'keep-alive, x-hop', 'x-hop': 'drop me', 'x-end': 'keep me',
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('origin /path?q=1');
    expect(answer.headers['x-origin']).toBe('yes');
    expect(answer.headers['keep-alive']).not.toBe('timeout=77');
    const seen = f.origin.requests[before];
    expect(seen?.headers.host).toBe(d.hostname);
    expect(seen?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen?.headers['x-forwarded-proto']).toBe('https');
    expect(seen?.headers['x-forwarded-host']).toBe(d.hostname);
    expect(seen?.headers.forwarded).toBe(`for=127.0.0.1;host="${d.hostname}";proto=https`);
    expect(seen?.headers['x-hop']).toBeUndefined();
    expect(seen?.headers['x-end']).toBe('keep me');
    expect(seen?.rawHeaders.filter((h) => h.toLowerCase() === 'x-custom-domain-assertion')).toHaveLength(1);
    expect(seen?.headers['x-custom-domain-assertion']).not.toBe('spoofed');
  });

  it('streams request bodies to the origin', async () => {
    const d = await f.addDomain(app.id);
    const before = f.origin.requests.length;
    const body = 'x'.repeat(200_000);
    expect((await f.get(d.hostname, '/upload', { method: 'POST', body, headers: { 'content-type': 'text/plain' } })).status).toBe(200);
    expect(f.origin.requests[before]?.body).toBe(body);
  });

  it('sends an assertion the origin verifies with jose: deployment key, then the application key, then again the deployment key after revocation (within 2 s)', async () => {
    const d = await f.addDomain(app.id);
    const assertionOf = async () => {
      const before = f.origin.requests.length;
      expect((await f.get(d.hostname)).status).toBe(200);
      return f.origin.requests[before]?.headers['x-custom-domain-assertion'] as string;
    };
    const first = await assertionOf();
    const verified = await jwtVerify(first, new TextEncoder().encode(DEPLOYMENT_KEY.secret), { issuer: 'custom-domain-service', audience: app.slug, algorithms: ['HS256'] });
    expect(verified.protectedHeader.kid).toBe('deployment');
    expect(verified.payload).toMatchObject({ sub: d.id, hostname: d.hostname, reference: d.reference });
    expect((verified.payload.exp as number) - (verified.payload.iat as number)).toBe(300);

    const key = generateAssertionKey();
    const createdAt = new Date();
    await f.store.run((r) => r.assertionKeys.insert({ kid: key.kid, applicationId: app.id, secretSealed: encryptSecret(key.secret, DATA_KEY, { purpose: 'assertion-key', id: key.kid }), createdAt, revokedAt: null }));
    await eventually('an assertion signed with the application key', async () => decodeProtectedHeader(await assertionOf()).kid === key.kid, { timeoutMs: 2_000, intervalMs: 100 });
    const signed = await assertionOf();
    await expect(jwtVerify(signed, new TextEncoder().encode(key.secret), { audience: app.slug })).resolves.toBeTruthy();

    await f.store.run((r) => r.assertionKeys.revoke(app.id, key.kid, new Date()));
    const revokedAt = Date.now();
    await eventually('an assertion signed with the deployment key', async () => decodeProtectedHeader(await assertionOf()).kid === 'deployment', { timeoutMs: 2_000, intervalMs: 100 });
    expect(Date.now() - revokedAt).toBeLessThan(2_000);
    // Never again the revoked key.
    for (let i = 0; i < 5; i++) expect(decodeProtectedHeader(await assertionOf()).kid).toBe('deployment');
  });

  it('proxies a WebSocket upgrade and echoes through it', async () => {
    const d = await f.addDomain(app.id);
    const ws = new WebSocket(`wss://127.0.0.1:${f.edge.httpsPort}/ws`, { ca: f.caPem, headers: { host: d.hostname }, ...{ servername: d.hostname } });
    const reply = await new Promise<string>((resolve, reject) => {
      ws.on('open', () => ws.send('hello'));
      ws.on('message', (data) => resolve(data.toString()));
      ws.on('error', reject);
    });
    expect(reply).toBe('echo: hello');
    const seen = f.origin.lastAt('/ws');
    expect(seen.headers.host).toBe(d.hostname);
    expect(seen.headers['x-custom-domain-assertion']).toBeTruthy();
    ws.close();
  });

  it('answers 404 for unknown hostnames and 503 with Retry-After while pending_dns or attention_required', async () => {
    const pending = await f.addDomain(app.id, { status: 'pending_dns' });
    const attention = await f.addDomain(app.id, { status: 'attention_required' });
    const p = await f.get(pending.hostname);
    expect(p.status).toBe(503);
    expect(p.headers['retry-after']).toBe('60');
    expect(p.body).toMatch(/not ready/);
    const a = await f.get(attention.hostname);
    expect(a.status).toBe(503);
    expect(a.body).toMatch(/check is failing/);
    const unknown = await f.plain('nobody.example.org');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatch(/Unknown hostname/);
  });

  it('serves a domain that turns ready within 5 s, and stops when it leaves ready, without any fan-out message', async () => {
    const d = await f.addDomain(app.id, { status: 'pending_dns' });
    expect((await f.get(d.hostname)).status).toBe(503);
    const servedWithin = async (status: number): Promise<number> => {
      const started = Date.now();
      await eventually(`${status} from the edge`, async () => (await f.get(d.hostname).catch(() => null))?.status === status, { timeoutMs: 5_000, intervalMs: 100 });
      return Date.now() - started;
    };
    await f.store.run((r) => r.domains.update(app.id, d.id, { status: 'ready' }));
    expect(await servedWithin(200)).toBeLessThan(5_000);
    await f.store.run((r) => r.domains.update(app.id, d.id, { status: 'attention_required' }));
    expect(await servedWithin(503)).toBeLessThan(5_000);
  });

  it('drops a deleted domain at once on the fan-out: 404 over HTTP and a refused handshake, even before its certificate row is cleaned up', async () => {
    const d = await f.addDomain(app.id);
    expect((await f.get(d.hostname)).status).toBe(200);
    await f.store.run((r) => r.domains.markDeleted(app.id, d.id, new Date()));
    expect(await f.store.run((r) => r.certificates.find(d.hostname))).not.toBeNull();
    await f.bus.publish(ROUTING_KEYS.domainChanged, { domain_id: d.id, hostname: d.hostname, application_id: app.id, change: 'deleted' });
    const published = Date.now();
    await eventually('404 over plain HTTP', async () => (await f.plain(d.hostname).catch(() => null))?.status === 404, { timeoutMs: 1_000, intervalMs: 100 });
    expect(Date.now() - published).toBeLessThan(1_000);
    await expect(handshake(d.hostname)).rejects.toThrow();
  });
});

describe('plain HTTP', () => {
  it('redirects a ready domain with 308 to HTTPS on the edge port, keeping the path', async () => {
    const d = await f.addDomain(app.id);
    const answer = await f.plain(`${d.hostname}:80`, '/a/b?c=d');
    expect(answer.status).toBe(308);
    expect(answer.headers.location).toBe(`https://${d.hostname}:${f.edge.httpsPort}/a/b?c=d`);
  });

  it('answers ACME HTTP-01 challenges from the database', async () => {
    // 43 base64url characters, as CAs make them.
    const token = `tok${randomUUID().replace(/-/g, '')}dddddddd`;
    await f.store.run((r) => r.acmeChallenges.save({ token, hostname: 'x.example.net', keyAuthorization: `${token}.thumb`, createdAt: new Date() }));
    const answer = await f.plain('x.example.net', `/.well-known/acme-challenge/${token}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(`${token}.thumb`);
    expect((await f.plain('x.example.net', '/.well-known/acme-challenge/nope')).status).toBe(404);
  });

  it('answers 503 with Retry-After for a pending domain', async () => {
    const d = await f.addDomain(app.id, { status: 'pending_dns' });
    const answer = await f.plain(d.hostname);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('60');
  });
});

describe('origin failures', () => {
  it('answers 504 when the origin is slower than ORIGIN_TIMEOUT and 502 when it resets or is down', async () => {
    const d = await f.addDomain(app.id);
    const slow = await f.get(d.hostname, '/slow/3000');
    expect(slow.status).toBe(504);
    expect(slow.body).toMatch(/did not answer in time/);
    const reset = await f.get(d.hostname, '/reset');
    expect(reset.status).toBe(502);
    const other = await f.addApplication();
    await f.store.run(async (r) => {
      const [origin] = await r.origins.list(other.id);
      await r.origins.update(other.id, origin!.id, { url: 'http://127.0.0.1:1' });
    });
    const down = await f.addDomain(other.id);
    const refused = await f.get(down.hostname);
    expect(refused.status).toBe(502);
    expect(refused.body).toMatch(/could not be reached/);
    // Still serving others.
    expect((await f.get(d.hostname)).status).toBe(200);
  });
});

describe('limits and counting', () => {
  it('refuses above proxied_requests_per_second with 429 and Retry-After, and counts only forwarded requests', async () => {
    const limited = await f.addApplication({ proxied_requests_per_second: 5, proxied_requests_per_minute: 600 });
    const d = await f.addDomain(limited.id);
    // A fresh second for the limits, so all 12 requests fall in one window.
    f.clock.startWindow(1);
    const answers = await Promise.all(Array.from({ length: 12 }, () => f.get(d.hostname, '/bytes/100')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    const refused = answers.find((a) => a.status === 429);
    expect(refused?.headers['retry-after']).toBe('1');
    const counted = f.traffic.filter((t) => t.applicationId === limited.id);
    expect(counted).toHaveLength(5);
    expect(counted.every((t) => t.bytes === 100)).toBe(true);
  });

  it('refuses above proxied_requests_per_minute with a Retry-After up to the end of the minute', async () => {
    const limited = await f.addApplication({ proxied_requests_per_second: 100, proxied_requests_per_minute: 4 });
    const d = await f.addDomain(limited.id);
    // A fresh minute for the limits, so all 6 requests fall in one window.
    f.clock.startWindow(60);
    const statuses: number[] = [];
    let retryAfter = '';
    for (let i = 0; i < 6; i++) {
      const a = await f.get(d.hostname);
      statuses.push(a.status);
      if (a.status === 429) retryAfter = a.headers['retry-after'] as string;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  });
});
