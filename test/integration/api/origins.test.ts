// Operator API: origins (DECISIONS §4). Real HTTP and HTTPS origins on loopback;
// the HTTPS one has a certificate from a throwaway CA named by ORIGIN_CA_BUNDLE.
import http, { type IncomingHttpHeaders, type RequestListener } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { probeOrigin } from '@cds/outbound';
import { expectError, expectValidationError, startTestApi, type Answer, type TestApi } from '../../support/api-harness';
import { createThrowawayCa, type ThrowawayCa } from '../../support/throwaway-ca';

interface Origin {
  id: string;
  url: string;
  health_path: string;
  status: 'pending_verification' | 'verified' | 'active' | 'retired';
  last_verified_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

interface FakeOrigin {
  url: string;
  port: number;
  seen: Array<{ path: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** `/status/<n>` answers n, `/hang` never answers, anything else 200. */
function originHandler(seen: FakeOrigin['seen']): RequestListener {
  return (req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    if (req.url === '/hang') return;
    const status = /^\/status\/(\d{3})$/.exec(req.url ?? '')?.[1];
    res.writeHead(status ? Number(status) : 200, { 'content-type': 'text/plain' }).end('origin says hello');
  };
}

async function startOrigin(tls?: { cert: string; key: string }): Promise<FakeOrigin> {
  const seen: FakeOrigin['seen'] = [];
  const server = tls ? https.createServer(tls, originHandler(seen)) : http.createServer(originHandler(seen));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let trusted: ThrowawayCa;
let untrusted: ThrowawayCa;
let plain: FakeOrigin;
let secure: FakeOrigin;
let strange: FakeOrigin; // https with a certificate from a CA the API does not trust
let api: TestApi;
let slug: string;

beforeAll(async () => {
  trusted = createThrowawayCa('Trusted Test CA');
  untrusted = createThrowawayCa('Untrusted Test CA');
  [plain, secure, strange] = await Promise.all([startOrigin(), startOrigin(trusted.leaf), startOrigin(untrusted.leaf)]);
  api = await startTestApi({ ORIGIN_CA_BUNDLE: trusted.caFile });
  ({ slug } = await api.createApplication());
});

afterAll(async () => {
  await api?.close();
  await Promise.all([plain, secure, strange].map((o) => o?.close()));
  trusted?.remove();
  untrusted?.remove();
});

const origins = () => `/operator/v1/applications/${slug}/origins`;
const register = (body: unknown) => api.operator<Origin>('POST', origins(), body);
const act = (id: string, action: 'verify' | 'activate' | 'retire', body?: unknown) => api.operator<Origin>('POST', `${origins()}/${id}/${action}`, body);

async function registered(url: string, healthPath?: string): Promise<Origin> {
  const res = await register({ url, ...(healthPath ? { health_path: healthPath } : {}) });
  expect(res.status).toBe(201);
  return res.body;
}

async function verified(url: string): Promise<Origin> {
  const origin = await registered(url);
  const res = await act(origin.id, 'verify');
  expect(res.status).toBe(200);
  return res.body;
}

function expectStatus(res: Answer<Origin>, status: Origin['status']): Origin {
  expect({ http: res.status, status: res.body.status }).toEqual({ http: 200, status });
  return res.body;
}

describe('register and list', () => {
  it('registers an origin as pending_verification with health_path "/" by default', async () => {
    const res = await register({ url: plain.url });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'health_path', 'id', 'last_error', 'last_verified_at', 'status', 'updated_at', 'url']);
    expect(res.body).toMatchObject({ url: plain.url, health_path: '/', status: 'pending_verification', last_verified_at: null, last_error: null });
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(res.body.updated_at).toBe(res.body.created_at);
  });

  it('lists origins oldest first', async () => {
    const a = await registered(`${plain.url}/a`, '/health');
    const b = await registered(`${plain.url}/b`);
    const list = await api.operator<Origin[]>('GET', origins());
    expect(list.status).toBe(200);
    const ids = list.body.map((o) => o.id);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
    expect(list.body.find((o) => o.id === a.id)).toEqual(a);
  });

  it.each([
    ['ftp://127.0.0.1/'],
    ['http://user:secret@127.0.0.1/'],
    ['http://user@127.0.0.1/'],
    ['http://127.0.0.1/#top'],
    ['http://127.0.0.1/?x=1'],
    ['not a url'],
    ['/relative'],
    [''],
    [42],
  ])('refuses the url %p', async (url) => {
    expectValidationError(await register({ url }), 'body', 'url');
  });

  it('refuses a missing url or body, a health_path not starting with "/", and unknown fields', async () => {
    expectValidationError(await register({ health_path: '/' }), 'body', 'url');
    expectValidationError(await api.operator('POST', origins()), 'body', '');
    expectValidationError(await register({ url: plain.url, health_path: 'health' }), 'body', 'health_path');
    expectValidationError(await register({ url: plain.url, health_path: '/a b' }), 'body', 'health_path');
    expectValidationError(await register({ url: plain.url, extra: true }), 'body', 'extra');
  });
});

describe('verify', () => {
  it("probes GET <url><health_path> with the origin's own Host and no assertion, and stores a new health_path", async () => {
    const origin = await registered(`${plain.url}/base/`, '/ready');
    plain.seen.length = 0;
    const res = await act(origin.id, 'verify', { health_path: '/health?deep=1' });
    const body = expectStatus(res, 'verified');
    expect(body).toMatchObject({ health_path: '/health?deep=1', last_error: null });
    expect(body.last_verified_at).toMatch(ISO_MS);
    expect(plain.seen).toHaveLength(1);
    expect(plain.seen[0]?.path).toBe('/base/health?deep=1');
    expect(plain.seen[0]?.headers.host).toBe(`127.0.0.1:${plain.port}`);
    expect(plain.seen[0]?.headers['x-custom-domain-assertion']).toBeUndefined();
    const listed = (await api.operator<Origin[]>('GET', origins())).body.find((o) => o.id === origin.id);
    expect(listed).toEqual(body);
  });

  it('passes on any answer below 500 (a 404 or a redirect included)', async () => {
    for (const path of ['/status/404', '/status/302', '/status/499']) {
      const origin = await registered(plain.url, path);
      expectStatus(await act(origin.id, 'verify'), 'verified');
    }
  });

  it('fails with 422 origin_verification_failed on a 5xx: status unchanged, last_error set', async () => {
    const origin = await registered(plain.url, '/status/503');
    const details = expectError(await act(origin.id, 'verify'), 422, 'origin_verification_failed');
    expect(details).toMatchObject({ reason: 'error_status', status_code: 503 });
    const after = (await api.operator<Origin[]>('GET', origins())).body.find((o) => o.id === origin.id);
    expect(after).toMatchObject({ status: 'pending_verification', last_verified_at: null, last_error: expect.stringContaining('503') });
    // A later success clears the error.
    const fixed = expectStatus(await act(origin.id, 'verify', { health_path: '/' }), 'verified');
    expect(fixed.last_error).toBeNull();
  });

  it('fails with reason connection_refused when nothing listens', async () => {
    const origin = await registered(`http://127.0.0.1:${await closedPort()}`);
    const details = expectError(await act(origin.id, 'verify'), 422, 'origin_verification_failed');
    expect(details.reason).toBe('connection_refused');
    const after = (await api.operator<Origin[]>('GET', origins())).body.find((o) => o.id === origin.id);
    expect(after).toMatchObject({ status: 'pending_verification', last_error: expect.stringMatching(/refused/) });
  });

  it('verifies an https origin whose CA is in ORIGIN_CA_BUNDLE', async () => {
    secure.seen.length = 0;
    expectStatus(await act((await registered(secure.url, '/health')).id, 'verify'), 'verified');
    expect(secure.seen.map((s) => [s.path, s.headers.host])).toEqual([['/health', `127.0.0.1:${secure.port}`]]);
    expectStatus(await act((await registered(`https://localhost:${secure.port}`)).id, 'verify'), 'verified');
  });

  it('fails with reason tls_error for a certificate from a CA it does not trust, or plain HTTP on an https URL', async () => {
    for (const url of [strange.url, `https://127.0.0.1:${plain.port}`]) {
      const origin = await registered(url);
      const details = expectError(await act(origin.id, 'verify'), 422, 'origin_verification_failed');
      expect(details.reason).toBe('tls_error');
    }
    expect(strange.seen).toEqual([]);
  });

  it('refuses a verify body with unknown fields or a bad health_path', async () => {
    const origin = await registered(plain.url);
    expectValidationError(await act(origin.id, 'verify', { health_path: 'x' }), 'body', 'health_path');
    expectValidationError(await act(origin.id, 'verify', { url: plain.url }), 'body', 'url');
  });
});

describe('state moves', () => {
  it('activates only a verified origin', async () => {
    const pending = await registered(plain.url);
    expect(expectError(await act(pending.id, 'activate'), 409, 'invalid_status_transition')).toMatchObject({ status: 'pending_verification' });
    const verifiedOne = expectStatus(await act(pending.id, 'verify'), 'verified');
    const active = expectStatus(await act(verifiedOne.id, 'activate'), 'active');
    expect(active.updated_at >= verifiedOne.updated_at).toBe(true);
    // Already active: not a verified origin.
    expectError(await act(active.id, 'activate'), 409, 'invalid_status_transition');
  });

  it('activating another origin sends the previous active one back to verified', async () => {
    const first = await verified(plain.url);
    const second = await verified(secure.url);
    expectStatus(await act(first.id, 'activate'), 'active');
    expectStatus(await act(second.id, 'activate'), 'active');
    const list = (await api.operator<Origin[]>('GET', origins())).body;
    expect(list.filter((o) => o.status === 'active').map((o) => o.id)).toEqual([second.id]);
    expect(list.find((o) => o.id === first.id)?.status).toBe('verified');
  });

  it('keeps an active origin active when verify passes, and when it fails (last_error set)', async () => {
    const origin = await verified(plain.url);
    expectStatus(await act(origin.id, 'activate'), 'active');
    expectStatus(await act(origin.id, 'verify'), 'active');
    const details = expectError(await act(origin.id, 'verify', { health_path: '/status/500' }), 422, 'origin_verification_failed');
    expect(details.reason).toBe('error_status');
    const after = (await api.operator<Origin[]>('GET', origins())).body.find((o) => o.id === origin.id);
    expect(after).toMatchObject({ status: 'active', health_path: '/status/500', last_error: expect.stringContaining('500') });
  });

  it('retires from any state; a retired origin that verifies becomes verified', async () => {
    const pending = await registered(plain.url);
    expectStatus(await act(pending.id, 'retire'), 'retired');
    const again = expectStatus(await act(pending.id, 'retire'), 'retired');
    expectStatus(await act(pending.id, 'verify'), 'verified');
    expect(again.id).toBe(pending.id);

    const active = await verified(plain.url);
    expectStatus(await act(active.id, 'activate'), 'active');
    expectStatus(await act(active.id, 'retire'), 'retired');
    expectError(await act(active.id, 'activate'), 409, 'invalid_status_transition');
    expectStatus(await act(active.id, 'verify'), 'verified');
    expectStatus(await act(active.id, 'activate'), 'active');
  });

  it('deletes any origin but the active one (409 origin_active)', async () => {
    const active = await verified(plain.url);
    expectStatus(await act(active.id, 'activate'), 'active');
    expectError(await api.operator('DELETE', `${origins()}/${active.id}`), 409, 'origin_active');
    expectStatus(await act(active.id, 'retire'), 'retired');
    const deleted = await api.operator('DELETE', `${origins()}/${active.id.toUpperCase()}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api.operator<Origin[]>('GET', origins())).body.map((o) => o.id)).not.toContain(active.id);
    expectError(await api.operator('DELETE', `${origins()}/${active.id}`), 404, 'origin_not_found');

    const pending = await registered(plain.url);
    expect((await api.operator('DELETE', `${origins()}/${pending.id}`)).status).toBe(204);
  });

  it('answers 404 origin_not_found for unknown and non-uuid ids, and accepts upper-case ids', async () => {
    const origin = await registered(plain.url);
    expectStatus(await act(origin.id.toUpperCase(), 'retire'), 'retired');
    for (const id of [UNKNOWN_ID, 'not-a-uuid', '%00']) {
      for (const action of ['verify', 'activate', 'retire'] as const) expectError(await act(id, action), 404, 'origin_not_found');
      expectError(await api.operator('DELETE', `${origins()}/${id}`), 404, 'origin_not_found');
    }
  });

  it('answers 404 application_not_found for an unknown application', async () => {
    expectError(await api.operator('GET', '/operator/v1/applications/no-such-app/origins'), 404, 'application_not_found');
    expectError(await api.operator('POST', '/operator/v1/applications/no-such-app/origins', { url: plain.url }), 404, 'application_not_found');
  });
});

describe('probeOrigin', () => {
  it('gives up after its timeout with reason timeout', async () => {
    const started = Date.now();
    const result = await probeOrigin({ url: plain.url, path: '/hang', hostHeader: 'shop.example.com', timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('sends the Host and extra headers it is given, and SNI for the origin, not the Host', async () => {
    secure.seen.length = 0;
    const result = await probeOrigin({
      url: `https://localhost:${secure.port}`, path: '/status/201', hostHeader: 'shop.example.com',
      headers: { 'X-Custom-Domain-Assertion': 'token', Host: 'ignored.example.com' }, timeoutMs: 5000, ca: [trusted.caPem],
    });
    expect(result).toMatchObject({ ok: true, statusCode: 201 });
    expect(secure.seen[0]?.headers).toMatchObject({ host: 'shop.example.com', 'x-custom-domain-assertion': 'token' });
  });

  it('reports dns_error for a name that does not resolve', async () => {
    const result = await probeOrigin({ url: 'http://no-such-host.invalid', path: '/', hostHeader: 'no-such-host.invalid', timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: false, reason: 'dns_error' });
  });
});
