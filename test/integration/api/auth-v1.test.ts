// Application credentials on /v1: what is refused (401), suspension (403), the
// per-credential request rate and the invalid-credential throttle (429).
import { randomUUID } from 'node:crypto';
import { expectError, startTestApi, type Answer, type TestApi } from '../../support/api-harness';
import { TestClock } from '../../support/test-clock';

const FAST = { api_requests_per_minute: 100_000 };
// A well-formed key that was never issued: cd_ + 43 base62 characters.
const UNKNOWN_KEY = `cd_${'A1b2C3d4E5'.repeat(4)}xyz`;

function expectRateHeaders(answer: Answer, limit: number, remaining: number): void {
  expect(answer.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(answer.headers.get('ratelimit-remaining')).toBe(String(remaining));
  const reset = answer.headers.get('ratelimit-reset');
  expect(reset).toMatch(/^\d+$/);
  expect(Number(reset)).toBeGreaterThanOrEqual(0);
  expect(Number(reset)).toBeLessThanOrEqual(60);
}

function expectRetryAfter(answer: Answer, max = 60): void {
  const retryAfter = answer.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(max);
}

describe('application credentials', () => {
  let api: TestApi;
  let key: string;
  // The API's clock: a test that counts requests in a one-minute window starts a fresh one.
  const clock = new TestClock();

  beforeAll(async () => {
    // Many refusals below come from one address: keep the throttle out of the way.
    api = await startTestApi({ V1_AUTH_FAILURES_PER_MINUTE: '1000' }, { now: clock.now });
    key = (await api.createApplication(undefined, FAST)).key;
  });
  afterAll(() => api?.close());

  it('accepts Authorization: Bearer with an issued key', async () => {
    expect(UNKNOWN_KEY).toMatch(/^cd_[0-9A-Za-z]{43}$/);
    expect(key).toMatch(/^cd_[0-9A-Za-z]{43}$/);
    expect((await api.request('GET', '/v1/domains', { token: key })).status).toBe(200);
  });

  it.each<[string, Record<string, string>, string]>([
    ['no Authorization header', {}, ''],
    ['an empty Authorization header', { authorization: '' }, ''],
    ['the Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }, ''],
    ['a bare key without a scheme', {}, 'bare'],
    ['Bearer without a key', { authorization: 'Bearer ' }, ''],
    ['an unknown key', { authorization: `Bearer ${UNKNOWN_KEY}` }, ''],
    ['a malformed key', { authorization: 'Bearer cd_short' }, ''],
    ['a key without the cd_ prefix', {}, 'unprefixed'],
    ['a key with a character changed', {}, 'changed'],
    ['the key in ?api_key=', {}, 'query'],
    ['the key in a cookie', {}, 'cookie'],
  ])('answers 401 unauthorized to %s', async (_name, headers, variant) => {
    let path = '/v1/domains';
    const h = { ...headers };
    if (variant === 'bare') h.authorization = key;
    if (variant === 'unprefixed') h.authorization = `Bearer ${key.slice(3)}`;
    if (variant === 'changed') h.authorization = `Bearer ${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    if (variant === 'query') path += `?api_key=${key}&access_token=${key}`;
    if (variant === 'cookie') h.cookie = `api_key=${key}; authorization=Bearer%20${key}; token=${key}`;
    const res = await api.request('GET', path, { headers: h });
    expectError(res, 401, 'unauthorized');
  });

  it('refuses every /v1 domain operation without a credential', async () => {
    const id = randomUUID();
    for (const [method, path] of [['POST', '/v1/domains'], ['GET', `/v1/domains/${id}`], ['DELETE', `/v1/domains/${id}`], ['POST', `/v1/domains/${id}/checks`]] as const) {
      const body = method === 'POST' && path === '/v1/domains' ? { hostname: 'noauth.example.com', reference: 'ws' } : undefined;
      expectError(await api.request(method, path, { body }), 401, 'unauthorized');
    }
    expect(await api.store.run((r) => r.domains.findLiveByHostname('noauth.example.com'))).toBeNull();
  });

  it('refuses a revoked credential at once', async () => {
    const own = await api.createApplication(undefined, FAST);
    expect((await api.request('GET', '/v1/domains', { token: own.key })).status).toBe(200);
    const creds = await api.operator('GET', `/operator/v1/applications/${own.slug}/credentials`);
    expect(creds.status).toBe(200);
    const [credential] = creds.body as Array<{ id: string }>;
    const revoked = await api.operator('POST', `/operator/v1/applications/${own.slug}/credentials/${credential?.id}/revoke`, {});
    expect(revoked.status).toBe(200);
    expectError(await api.request('GET', '/v1/domains', { token: own.key }), 401, 'unauthorized');
    expectError(await api.request('POST', '/v1/domains', { token: own.key, body: { hostname: 'revoked.example.com', reference: 'ws' } }), 401, 'unauthorized');
  });

  it('answers 403 application_suspended for a suspended application, with rate headers, and serves it again once resumed', async () => {
    const own = await api.createApplication(undefined, { api_requests_per_minute: 1000 });
    const created = await api.request('POST', '/v1/domains', { token: own.key, body: { hostname: 'suspended.example.com', reference: 'ws' } });
    expect(created.status).toBe(201);
    expect((await api.operator('PATCH', `/operator/v1/applications/${own.slug}`, { status: 'suspended' })).status).toBe(200);
    for (const [method, path] of [['GET', '/v1/domains'], ['GET', `/v1/domains/${created.body.id}`], ['POST', `/v1/domains/${created.body.id}/checks`], ['DELETE', `/v1/domains/${created.body.id}`]] as const) {
      const res = await api.request(method, path, { token: own.key });
      expectError(res, 403, 'application_suspended');
      expect(res.headers.get('ratelimit-limit')).toBe('1000');
    }
    expectError(await api.request('POST', '/v1/domains', { token: own.key, body: { hostname: 'suspended-2.example.com', reference: 'ws' } }), 403, 'application_suspended');
    // A wrong key for a suspended application is still a 401.
    expectError(await api.request('GET', '/v1/domains', { token: UNKNOWN_KEY }), 401, 'unauthorized');

    expect((await api.operator('PATCH', `/operator/v1/applications/${own.slug}`, { status: 'active' })).status).toBe(200);
    const after = await api.request('GET', `/v1/domains/${created.body.id}`, { token: own.key });
    expect(after.status).toBe(200);
    expect(after.body.deleted_at).toBeNull();
  });

  it('counts every request with a valid key against api_requests_per_minute and puts RateLimit headers on every answer', async () => {
    const own = await api.createApplication(undefined, { api_requests_per_minute: 5 });
    clock.startWindow(60);
    const answers = [
      await api.request('GET', '/v1/domains', { token: own.key }),
      await api.request('GET', `/v1/domains/${randomUUID()}`, { token: own.key }),
      await api.request('POST', '/v1/domains', { token: own.key, body: { hostname: 'example.com', reference: 'ws' } }),
      await api.request('GET', '/v1/domains/not-a-uuid', { token: own.key }),
      await api.request('POST', '/v1/domains', { token: own.key, body: { hostname: 'rate.example.com', reference: 'ws' } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 404, 422, 404, 201]);
    answers.forEach((a, i) => expectRateHeaders(a, 5, 4 - i));

    const over = await api.request('GET', '/v1/domains', { token: own.key });
    expectError(over, 429, 'rate_limited');
    expectRetryAfter(over);
    expectRateHeaders(over, 5, 0);
    const overCreate = await api.request('POST', '/v1/domains', { token: own.key, body: { hostname: 'rate-2.example.com', reference: 'ws' } });
    expectError(overCreate, 429, 'rate_limited');
    expect(await api.store.run((r) => r.domains.findLiveByHostname('rate-2.example.com'))).toBeNull();

    // The budget is per credential: another application's key is unaffected.
    const other = await api.request('GET', '/v1/domains', { token: key });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-limit')).toBe('100000');
  });
});

describe('invalid-credential throttle', () => {
  let api: TestApi;
  const clock = new TestClock();
  beforeAll(async () => {
    api = await startTestApi({ V1_AUTH_FAILURES_PER_MINUTE: '5' }, { now: clock.now });
  });
  afterAll(() => api?.close());

  it('after 5 failures from one address answers 429 with Retry-After to every /v1 request, a valid key included', async () => {
    const { key } = await api.createApplication(undefined, FAST);
    clock.startWindow(60);
    const failures = [
      await api.request('GET', '/v1/domains'),
      await api.request('GET', '/v1/domains', { token: UNKNOWN_KEY }),
      await api.request('GET', '/v1/domains', { token: 'cd_short' }),
      await api.request('GET', `/v1/domains?api_key=${key}`),
    ];
    for (const f of failures) expectError(f, 401, 'unauthorized');
    // Below the threshold a valid key still works (and is not a failure).
    expect((await api.request('GET', '/v1/domains', { token: key })).status).toBe(200);
    expectError(await api.request('GET', '/v1/domains', { headers: { authorization: 'Basic eDp5' } }), 401, 'unauthorized');

    for (const res of [
      await api.request('GET', '/v1/domains', { token: key }),
      await api.request('POST', '/v1/domains', { token: key, body: { hostname: 'throttled.example.com', reference: 'ws' } }),
      await api.request('GET', '/v1/domains', { token: UNKNOWN_KEY }),
      await api.request('GET', '/v1/domains'),
    ]) {
      expectError(res, 429, 'rate_limited');
      expectRetryAfter(res);
    }
    expect(await api.store.run((r) => r.domains.findLiveByHostname('throttled.example.com'))).toBeNull();
  });

  it('does not throttle the operator API with /v1 failures', async () => {
    expect((await api.operator('GET', '/operator/v1/applications')).status).toBe(200);
  });
});
