// PUT /operator/v1/token (DECISIONS §4): only the SHA-256 is stored, and every
// instance reads it from the database, so two API instances on one database
// switch together. The tests run in the order written.
import { randomBytes } from 'node:crypto';
import { OPERATOR_TOKEN_SETTING, secretHash } from '@cds/core';
import { expectError, expectValidationError, startTestApi, type TestApi } from '../../support/api-harness';

const APPS = '/operator/v1/applications';
const newToken = () => randomBytes(36).toString('base64url'); // 48 characters

let first: TestApi;
let second: TestApi;
/** The token in force once the tests below have replaced it. */
let current: string;

beforeAll(async () => {
  // Old tokens are tried on purpose; the failed-token throttle is not under test here.
  const env = { OPERATOR_AUTH_FAILURES_PER_MINUTE: '1000' };
  first = await startTestApi(env);
  second = await startTestApi(env, { url: first.config.databaseUrl });
});

afterAll(async () => {
  await second?.close();
  await first?.close();
});

const replace = (api: TestApi, token: string, body: unknown) => api.request('PUT', '/operator/v1/token', { token, body });
const statusWith = async (api: TestApi, token: string) => (await api.request('GET', APPS, { token })).status;

it('refuses tokens that are too short, too long, with whitespace or non-ASCII, and other bodies', async () => {
  const bad: unknown[] = [{ token: 'x'.repeat(31) }, { token: 'x'.repeat(513) }, { token: `${'x'.repeat(40)} y` }, { token: `${'x'.repeat(40)}\t` },
    { token: `${'x'.repeat(40)}é` }, { token: 123456789012345 }, { token: null }, {}];
  for (const body of bad) expectValidationError(await replace(first, first.operatorToken, body), 'body', 'token');
  expectValidationError(await replace(first, first.operatorToken, { token: newToken(), extra: 1 }), 'body', 'extra');
  expectValidationError(await first.request('PUT', '/operator/v1/token', { token: first.operatorToken }), 'body', '');
  // Nothing changed: both configured tokens still work.
  expect(await statusWith(first, first.operatorToken)).toBe(200);
  expect(await statusWith(second, second.operatorToken)).toBe(200);
  expect(await first.store.run((r) => r.settings.get(OPERATOR_TOKEN_SETTING))).toBeNull();
});

it('needs the current token', async () => {
  expectError(await replace(first, 'wrong-token', { token: newToken() }), 401, 'unauthorized');
  expectError(await replace(first, second.operatorToken, { token: newToken() }), 401, 'unauthorized');
});

it('replaces the token on every instance at once, storing only its SHA-256', async () => {
  const token = newToken();
  const res = await replace(first, first.operatorToken, { token });
  expect(res.status).toBe(204);
  expect(res.text).toBe('');

  const stored = await second.store.run((r) => r.settings.get(OPERATOR_TOKEN_SETTING));
  expect(stored).toBe(secretHash(token));
  expect(stored).not.toContain(token);

  // The configured tokens stop working on both instances; the new one works on both.
  expectError(await first.request('GET', APPS, { token: first.operatorToken }), 401, 'unauthorized');
  expectError(await second.request('GET', APPS, { token: second.operatorToken }), 401, 'unauthorized');
  expect(await statusWith(first, token)).toBe(200);
  expect(await statusWith(second, token)).toBe(200);

  // Replaced again through the other instance: the token of a minute ago stops everywhere too.
  const next = newToken();
  expect((await replace(second, token, { token: next })).status).toBe(204);
  expect(await statusWith(first, token)).toBe(401);
  expect(await statusWith(second, token)).toBe(401);
  expect(await statusWith(first, next)).toBe(200);
  expect(await statusWith(second, next)).toBe(200);
  current = next;
});

it('accepts tokens of exactly 32 and 512 printable characters', async () => {
  const short = `!~${'a'.repeat(28)}#"`;
  const long = `${'Z'.repeat(511)}~`;
  expect([short.length, long.length]).toEqual([32, 512]);
  expect((await replace(first, current, { token: long })).status).toBe(204);
  expect(await statusWith(second, long)).toBe(200);
  expect((await replace(second, long, { token: short })).status).toBe(204);
  expect(await statusWith(first, short)).toBe(200);
  expect(await statusWith(first, long)).toBe(401);
});
