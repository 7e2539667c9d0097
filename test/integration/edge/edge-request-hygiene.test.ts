// Request hygiene at the edge (DECISIONS §5), over HTTP/1.1 and HTTP/2: an
// absolute-form target reaches the origin in origin-form (400 when its
// authority is another host than Host), a path climbing above the origin URL's
// own path is refused, and client-sent address and URL headers never reach
// the origin, which gets X-Real-IP.
import type { DomainRow } from '@cds/data';
import { anApplication } from '../data/data-fixtures';
import { startEdgeFixture, type EdgeFixture } from './edge-fixture';
import { h2Get } from './h2-client';
import { seedApplication } from './served-domain';

let f: EdgeFixture;
let d: DomainRow;
/** A domain of an application whose origin URL has a path of its own: /app/. */
let prefixed: DomainRow;

beforeAll(async () => {
  f = await startEdgeFixture();
  const app = await f.addApplication();
  d = await f.addDomain(app.id);
  const withPath = await seedApplication(f.store, `${f.origin.url}/app/`, anApplication());
  prefixed = await f.addDomain(withPath.id);
});
afterAll(() => f.close());

/** What the origin saw of the requests made by `send` (nothing: an empty list). */
async function seenBy(send: () => Promise<unknown>): Promise<typeof f.origin.requests> {
  const before = f.origin.requests.length;
  await send();
  return f.origin.requests.slice(before);
}

describe('request target', () => {
  it('forwards an absolute-form target in origin-form', async () => {
    let status = 0;
    const seen = await seenBy(async () => ({ status } = await f.get(d.hostname, `http://${d.hostname}/a/b?c=d`)));
    expect(status).toBe(200);
    expect(seen.map((r) => r.url)).toEqual(['/a/b?c=d']);
    expect(seen[0]?.headers.host).toBe(d.hostname);
  });

  it('answers 400 to an absolute-form target naming another host than Host, forwarding nothing', async () => {
    let answer = { status: 0, body: '' };
    const seen = await seenBy(async () => ({ ...answer } = await f.get(d.hostname, `http://${prefixed.hostname}/a`)));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatch(/another host/);
    expect(seen).toEqual([]);
  });

  it.each([
    ['/../x'], ['/a/../../x'], ['/%2e%2e/x'], ['/a/%2E%2e/%2e./x'], ['/.%2e/x'], ['/a/..%2f..%2fx'],
  ])('answers 400 to %p, which climbs above the origin URL\'s path, over HTTP/1.1 and HTTP/2', async (target) => {
    for (const domain of [d, prefixed]) {
      const seen = await seenBy(async () => {
        expect((await f.get(domain.hostname, target)).status).toBe(400);
        expect((await h2Get(f.edge.httpsPort, domain.hostname, f.caPem, target)).status).toBe(400);
      });
      expect(seen).toEqual([]);
    }
  });

  it('forwards dot-segments that stay below the root, under the origin URL\'s path', async () => {
    const seen = await seenBy(async () => {
      expect((await f.get(prefixed.hostname, '/a/../b?x=/../..')).status).toBe(200);
      expect((await h2Get(f.edge.httpsPort, prefixed.hostname, f.caPem, '/c')).status).toBe(200);
    });
    expect(seen.map((r) => r.url)).toEqual(['/app/a/../b?x=/../..', '/app/c']);
  });
});

describe('headers to the origin', () => {
  const spoofed = {
    'x-real-ip': '6.6.6.6', 'true-client-ip': '6.6.6.6', 'cf-connecting-ip': '6.6.6.6', 'x-original-url': '/admin', 'x-rewrite-url': '/admin',
  };

  it('sets X-Real-IP to the client address and removes True-Client-IP, CF-Connecting-IP, X-Original-URL and X-Rewrite-URL, over HTTP/1.1 and HTTP/2', async () => {
    const seen = await seenBy(async () => {
      expect((await f.get(d.hostname, '/h', { headers: spoofed })).status).toBe(200);
      expect((await h2Get(f.edge.httpsPort, d.hostname, f.caPem, '/h', { headers: spoofed })).status).toBe(200);
    });
    expect(seen).toHaveLength(2);
    for (const request of seen) {
      expect(request.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'x-real-ip')).toHaveLength(1);
      expect(request.headers['x-real-ip']).toBe('127.0.0.1');
      for (const name of ['true-client-ip', 'cf-connecting-ip', 'x-original-url', 'x-rewrite-url']) expect(request.headers[name]).toBeUndefined();
    }
  });
});
