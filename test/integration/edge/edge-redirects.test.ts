// The edge's redirects (DECISIONS §5, §12): a domain's redirect_to answered with
// 308 over HTTP/1.1 and HTTP/2 once both domains are ready, and the port the
// redirects name, EDGE_PUBLIC_HTTPS_PORT, from the configuration to the plain
// listener's redirect to HTTPS.
import { randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import { ROUTING_KEYS } from '@cds/core';
import { loadConfig } from '@cds/config';
import type { DomainRow } from '@cds/data';
import { startEdgeService, type EdgeService } from '@cds/edge-proxy';
import { silentLogger } from '@cds/logging';
import { eventually } from '../../support/eventually';
import { aDomain, checksFor } from '../data/data-fixtures';
import { DATA_KEY, startEdgeFixture, type EdgeFixture } from './edge-fixture';
import { h2Request, openH2 } from './h2-client';
import { saveCertificate } from './served-domain';

let f: EdgeFixture;
let app: { id: string; slug: string };

beforeAll(async () => {
  f = await startEdgeFixture();
  app = await f.addApplication();
});
afterAll(() => f?.close());

/** A domain of the application with a certificate, redirecting to `redirectTo` when given. */
async function addDomain(applicationId: string, opts: { status?: DomainRow['status']; redirectTo?: string; hostname?: string } = {}): Promise<DomainRow> {
  const domain = aDomain(applicationId, {
    status: opts.status ?? 'ready', redirectTo: opts.redirectTo ?? null, ...(opts.hostname ? { hostname: opts.hostname } : {}),
  });
  await f.store.transaction((r) => r.domains.insert(domain, checksFor(domain.id)));
  await saveCertificate(f.store, f.ca, DATA_KEY, domain);
  return domain;
}

/** Tells the edge at once that a domain changed (the checker and the API publish the same). */
const changed = (domain: DomainRow, change: string) =>
  f.bus.publish(ROUTING_KEYS.domainChanged, { domain_id: domain.id, hostname: domain.hostname, application_id: domain.applicationId, change });

describe('redirect_to', () => {
  it('answers 308 to https://<redirect_to><path and query> over HTTP/1.1 and HTTP/2 once both are ready, without reaching the origin', async () => {
    const target = await addDomain(app.id);
    const apex = await addDomain(app.id, { redirectTo: target.hostname });
    const before = f.origin.requests.length;

    const h1 = await f.get(apex.hostname, '/shop/cart?item=7&x=%20y');
    expect(h1.status).toBe(308);
    expect(h1.headers.location).toBe(`https://${target.hostname}:${f.edge.httpsPort}/shop/cart?item=7&x=%20y`);

    const session = await openH2(f.edge.httpsPort, apex.hostname, f.caPem);
    try {
      const h2 = await h2Request(session, apex.hostname, '/a/b?c=d');
      expect(h2.status).toBe(308);
      expect(h2.headers.location).toBe(`https://${target.hostname}:${f.edge.httpsPort}/a/b?c=d`);
    } finally {
      session.close();
    }
    expect(f.origin.requests.length).toBe(before);
    // The target itself is served.
    expect((await f.get(target.hostname, '/landed')).status).toBe(200);
  });

  it('serves the domain from the origin while its target is not ready, and redirects once it is', async () => {
    const target = await addDomain(app.id, { status: 'pending_dns' });
    const apex = await addDomain(app.id, { redirectTo: target.hostname });
    const served = await f.get(apex.hostname, '/meanwhile');
    expect(served.status).toBe(200);
    expect(served.body).toBe('origin /meanwhile');

    await f.store.run((r) => r.domains.update(app.id, target.id, { status: 'ready' }));
    await changed(target, 'status');
    await eventually('the redirect once the target is ready', async () => (await f.get(apex.hostname, '/now')).status === 308, { timeoutMs: 5_000, intervalMs: 100 });
  });

  it('answers 503 saying its target is gone once the target is deleted', async () => {
    const target = await addDomain(app.id);
    const apex = await addDomain(app.id, { redirectTo: target.hostname });
    expect((await f.get(apex.hostname, '/')).status).toBe(308);

    await f.store.run((r) => r.domains.markDeleted(app.id, target.id, new Date()));
    await changed(target, 'deleted');
    let last: { status: number; body: string; headers: IncomingHttpHeaders } | null = null;
    await eventually('503 once the target is gone', async () => {
      last = await f.get(apex.hostname, '/');
      return last.status === 503;
    }, { timeoutMs: 5_000, intervalMs: 100, explain: () => JSON.stringify(last) });
    const gone = await f.get(apex.hostname, '/');
    expect(gone.body).toMatch(/redirect target was deleted/);
    expect(gone.headers['retry-after']).toBeDefined();
  });

  it('a target name that is now another application\'s domain is gone too', async () => {
    const other = await f.addApplication();
    const hostname = `www-${randomBytes(4).toString('hex')}.example.net`;
    await addDomain(other.id, { hostname });
    const apex = await addDomain(app.id, { redirectTo: hostname });
    expect((await f.get(apex.hostname, '/')).status).toBe(503);
  });
});

/** Plain HTTP GET to 127.0.0.1:`port` with this Host. */
function plainGet(port: number, host: string, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    }).on('error', reject);
  });
}

describe('EDGE_PUBLIC_HTTPS_PORT', () => {
  /** The edge's configuration over the fixture's database, on free ports. */
  const env = (extra: Record<string, string>) => ({
    DATABASE_URL: f.db.db.url, DATA_ENCRYPTION_KEY: DATA_KEY.toString('base64'), ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
    EDGE_HTTPS_PORT: '0', EDGE_HTTP_PORT: '0', BIND_ADDRESS: '127.0.0.1', ...extra,
  });

  async function withEdge(extra: Record<string, string>, run: (service: EdgeService) => Promise<void>): Promise<void> {
    const service = await startEdgeService({ config: loadConfig({ mode: 'all-in-one', env: env(extra) }), logger: silentLogger, store: f.store });
    try {
      await run(service);
    } finally {
      await service.stop(1_000);
    }
  }

  it('is the port the plain-HTTP redirect to HTTPS names, left out when 443; unset, the edge\'s own HTTPS port', async () => {
    const domain = await addDomain(app.id);
    await withEdge({ EDGE_PUBLIC_HTTPS_PORT: '443' }, async ({ edge }) => {
      expect(await plainGet(edge.httpPort, domain.hostname, '/a/b?c=d')).toEqual({ status: 308, location: `https://${domain.hostname}/a/b?c=d` });
    });
    await withEdge({ EDGE_PUBLIC_HTTPS_PORT: '4443' }, async ({ edge }) => {
      expect(await plainGet(edge.httpPort, domain.hostname, '/a?b')).toEqual({ status: 308, location: `https://${domain.hostname}:4443/a?b` });
    });
    await withEdge({}, async ({ edge }) => {
      expect(await plainGet(edge.httpPort, domain.hostname, '/x')).toEqual({ status: 308, location: `https://${domain.hostname}:${edge.httpsPort}/x` });
    });
  });

  it('is the port a redirect_to names', async () => {
    const withPort = await startEdgeFixture({ publicHttpsPort: 443 });
    try {
      const { id } = await withPort.addApplication();
      const target = await withPort.addDomain(id);
      const apex = aDomain(id, { status: 'ready', redirectTo: target.hostname });
      await withPort.store.transaction((r) => r.domains.insert(apex, checksFor(apex.id)));
      await saveCertificate(withPort.store, withPort.ca, DATA_KEY, apex);
      const answer = await withPort.get(apex.hostname, '/p?q=1');
      expect(answer.status).toBe(308);
      expect(answer.headers.location).toBe(`https://${target.hostname}/p?q=1`);
    } finally {
      await withPort.close();
    }
  });
});
