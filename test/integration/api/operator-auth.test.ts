// Operator API access control, in the contract's order: API off → 404,
// address not allowed → 403, throttled → 429, token missing or wrong → 401.
// Several API instances share one database; failure counters and the stored
// token live there, so the tests run in the order written.
import { randomBytes } from 'node:crypto';
import { secretHash } from '@cds/core';
import { startTestApi, type Answer, type TestApi } from '../../support/api-harness';

const APPS = '/operator/v1/applications';
// Every served operator path, with a method each (ids need not exist: access control comes first).
const OPERATOR_PATHS: Array<[string, string]> = [
  ['GET', APPS],
  ['POST', APPS],
  ['GET', `${APPS}/some-app`],
  ['PATCH', `${APPS}/some-app`],
  ['DELETE', `${APPS}/some-app?confirm=some-app`],
  ['GET', `${APPS}/some-app/credentials`],
  ['POST', `${APPS}/some-app/credentials`],
  ['POST', `${APPS}/some-app/credentials/00000000-0000-4000-8000-000000000000/rotate`],
  ['POST', `${APPS}/some-app/credentials/00000000-0000-4000-8000-000000000000/revoke`],
  ['DELETE', `${APPS}/some-app/credentials/00000000-0000-4000-8000-000000000000`],
  ['GET', '/operator/v1/doctor'],
  ['PUT', '/operator/v1/token'],
  ['GET', '/operator/v1/no-such-thing'],
  ['GET', '/operator/v1'],
];

let main: TestApi;
const others: TestApi[] = [];

/** A second API instance on the same database with other settings. */
async function instance(env: Record<string, string>): Promise<TestApi> {
  const api = await startTestApi(env, { url: main.config.databaseUrl });
  others.push(api);
  return api;
}

beforeAll(async () => {
  main = await startTestApi({ OPERATOR_AUTH_FAILURES_PER_MINUTE: '1000' });
});

afterAll(async () => {
  for (const api of others) await api.close();
  await main?.close();
});

function expectError(res: Answer, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.details).toEqual(expect.any(Object));
}

/**
 * Served operations are described by the OpenAPI document; unknown paths and
 * the operations marked `x-not-yet-served` are not, so those answers are not checked against it.
 */
function described(api: TestApi, method: string, path: string): boolean {
  const paths = api.contract.document.paths as Record<string, Record<string, Record<string, unknown>>>;
  const bare = path.split('?')[0] as string;
  for (const [template, operations] of Object.entries(paths)) {
    if (!new RegExp(`^${template.replace(/\{[a-z_]+\}/g, '[^/]+')}$`).test(bare)) continue;
    const op = operations[method.toLowerCase()];
    return op !== undefined && op['x-not-yet-served'] !== true;
  }
  return false;
}

/** Operator request with any Authorization header (or none). */
function call(api: TestApi, method: string, path: string, authorization?: string, headers: Record<string, string> = {}): Promise<Answer> {
  return api.request(method, path, {
    headers: { ...headers, ...(authorization === undefined ? {} : { authorization }) },
    unchecked: !described(api, method, path),
  });
}

test('OPERATOR_API_ENABLED=false: every operator path is 404 not_found, before the address and token checks', async () => {
  const off = await instance({ OPERATOR_API_ENABLED: 'false', OPERATOR_ALLOWED_CIDRS: '10.0.0.0/8', OPERATOR_AUTH_FAILURES_PER_MINUTE: '1' });
  for (const [method, path] of OPERATOR_PATHS) {
    expectError(await call(off, method, path, `Bearer ${off.operatorToken}`), 404, 'not_found');
    expectError(await call(off, method, path), 404, 'not_found');
    expectError(await call(off, method, path, 'Bearer wrong-token'), 404, 'not_found');
  }
  // The application API of that instance is unaffected.
  expectError(await off.request('GET', '/v1/domains'), 401, 'unauthorized');
});

test('failed tokens are throttled per address: 401 three times, then 429 even for the right token', async () => {
  const throttled = await instance({ OPERATOR_AUTH_FAILURES_PER_MINUTE: '3' });
  for (let i = 0; i < 3; i += 1) {
    expectError(await call(throttled, 'GET', APPS, `Bearer wrong-${i}`), 401, 'unauthorized');
  }
  for (const authorization of [`Bearer ${throttled.operatorToken}`, 'Bearer wrong-again', undefined]) {
    const res = await call(throttled, 'GET', APPS, authorization);
    expectError(res, 429, 'rate_limited');
    const retryAfter = res.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  }
  // The failures are counted in the shared database: an instance with the
  // same threshold refuses this address too.
  const sibling = await instance({ OPERATOR_AUTH_FAILURES_PER_MINUTE: '3' });
  expectError(await call(sibling, 'GET', APPS, `Bearer ${sibling.operatorToken}`), 429, 'rate_limited');
  // The application API has its own throttle.
  expect((await throttled.request('GET', '/v1/domains')).status).toBe(401);
});

test('an address outside OPERATOR_ALLOWED_CIDRS is 403 forbidden, before the throttle and the token', async () => {
  // 127.0.0.1 has used up a threshold of 3 in the test above; 403 still comes first.
  const closed = await instance({ OPERATOR_ALLOWED_CIDRS: '10.0.0.0/8', OPERATOR_AUTH_FAILURES_PER_MINUTE: '3' });
  for (const [method, path] of OPERATOR_PATHS) {
    expectError(await call(closed, method, path, `Bearer ${closed.operatorToken}`), 403, 'forbidden');
  }
  expectError(await call(closed, 'GET', APPS), 403, 'forbidden');
  expectError(await call(closed, 'GET', APPS, 'Bearer wrong'), 403, 'forbidden');
  // Without TRUST_PROXY, X-Forwarded-For is ignored.
  expectError(await call(closed, 'GET', APPS, `Bearer ${closed.operatorToken}`, { 'x-forwarded-for': '10.1.2.3' }), 403, 'forbidden');
  // The application API is not restricted by the operator ranges.
  expect((await closed.request('GET', '/v1/domains')).status).toBe(401);
});

test('with TRUST_PROXY naming the proxy (loopback here) the forwarded address decides', async () => {
  const proxied = await instance({ OPERATOR_ALLOWED_CIDRS: '10.0.0.0/8', TRUST_PROXY: 'loopback', OPERATOR_AUTH_FAILURES_PER_MINUTE: '3' });
  const res = await call(proxied, 'GET', APPS, `Bearer ${proxied.operatorToken}`, { 'x-forwarded-for': '10.1.2.3' });
  expect(res.status).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  expectError(await call(proxied, 'GET', APPS, `Bearer ${proxied.operatorToken}`), 403, 'forbidden');
  expectError(await call(proxied, 'GET', APPS, `Bearer ${proxied.operatorToken}`, { 'x-forwarded-for': '192.168.1.1' }), 403, 'forbidden');
  // A forwarded address has its own failure budget (127.0.0.1 is throttled, 10.1.2.3 is not).
  expectError(await call(proxied, 'GET', APPS, 'Bearer wrong', { 'x-forwarded-for': '10.1.2.3' }), 401, 'unauthorized');
});

test('a missing token, another scheme or a wrong token is 401 unauthorized', async () => {
  const token = main.operatorToken;
  const refused: Array<string | undefined> = [
    undefined,
    '',
    'Bearer',
    'Bearer ',
    `Basic ${Buffer.from(`operator:${token}`).toString('base64')}`,
    `Token ${token}`,
    token,
    `Bearer ${token}x`,
    `Bearer ${token.slice(0, -1)}`,
    `Bearer ${token} extra`,
    `Bearer ${randomBytes(24).toString('base64url')}`,
  ];
  for (const authorization of refused) {
    expectError(await call(main, 'GET', APPS, authorization), 401, 'unauthorized');
  }
  // Not in the query string or a cookie either.
  expectError(await main.request('GET', `${APPS}?token=${encodeURIComponent(token)}&access_token=${encodeURIComponent(token)}`), 401, 'unauthorized');
  expectError(await main.request('GET', APPS, { headers: { cookie: `operator_token=${token}; token=${token}` } }), 401, 'unauthorized');
  // An unknown operator path answers 401 to strangers rather than revealing what exists.
  expectError(await call(main, 'GET', '/operator/v1/no-such-thing'), 401, 'unauthorized');

  expect((await call(main, 'GET', APPS, `Bearer ${token}`)).status).toBe(200);
  expectError(await call(main, 'GET', '/operator/v1/no-such-thing', `Bearer ${token}`), 404, 'not_found');
});

test('a token stored in the settings replaces the configured one at once, on every instance', async () => {
  const sibling = await instance({ OPERATOR_AUTH_FAILURES_PER_MINUTE: '1000' });
  expect((await call(main, 'GET', APPS, `Bearer ${main.operatorToken}`)).status).toBe(200);
  expect((await call(sibling, 'GET', APPS, `Bearer ${sibling.operatorToken}`)).status).toBe(200);

  const replacement = randomBytes(32).toString('base64url');
  await main.store.run((r) => r.settings.set('operator_token_sha256', secretHash(replacement)));

  expectError(await call(main, 'GET', APPS, `Bearer ${main.operatorToken}`), 401, 'unauthorized');
  expectError(await call(sibling, 'GET', APPS, `Bearer ${sibling.operatorToken}`), 401, 'unauthorized');
  for (const api of [main, sibling]) {
    const res = await call(api, 'GET', APPS, `Bearer ${replacement}`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
  }
  const created = await sibling.request('POST', APPS, { token: replacement, body: { slug: `tok-${randomBytes(4).toString('hex')}`, name: 'By new token' } });
  expect(created.status).toBe(201);
});
