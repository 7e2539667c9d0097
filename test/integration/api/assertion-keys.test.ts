// Operator API: assertion keys (DECISIONS §4). Secrets are shown once and stored sealed.
import { createHmac } from 'node:crypto';
import { decryptSecret, signAssertion } from '@cds/core';
import { expectError, expectValidationError, startTestApi, type TestApi } from '../../support/api-harness';

interface AssertionKey {
  kid: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}
interface Issued {
  kid: string;
  secret: string;
  status: 'active';
  created_at: string;
}
interface KeyList {
  signing_kid: string;
  keys: AssertionKey[];
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DEPLOYMENT_KID = 'deployment-2026';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ ASSERTION_DEPLOYMENT_KID: DEPLOYMENT_KID });
});

afterAll(async () => {
  await api?.close();
});

const keysPath = (slug: string) => `/operator/v1/applications/${slug}/assertion-keys`;
const list = async (slug: string) => {
  const res = await api.operator<KeyList>('GET', keysPath(slug));
  expect(res.status).toBe(200);
  return res.body;
};
const issue = async (slug: string, body?: unknown) => {
  const res = await api.operator<Issued>('POST', keysPath(slug), body);
  expect(res.status).toBe(201);
  return res.body;
};
const revoke = (slug: string, kid: string) => api.operator<AssertionKey>('POST', `${keysPath(slug)}/${kid}/revoke`);

async function applicationId(slug: string): Promise<string> {
  const app = await api.store.run((r) => r.applications.findLiveBySlug(slug));
  if (!app) throw new Error(`no application ${slug}`);
  return app.id;
}

it('signs with the deployment key while the application has no key', async () => {
  const { slug } = await api.createApplication();
  expect(await list(slug)).toEqual({ signing_kid: DEPLOYMENT_KID, keys: [] });
});

it('issues a key (no body or an empty object): ak_ + 16 hex, a 32-byte base64url secret, shown once', async () => {
  const { slug } = await api.createApplication();
  const first = await issue(slug);
  expect(Object.keys(first).sort()).toEqual(['created_at', 'kid', 'secret', 'status']);
  expect(first.kid).toMatch(/^ak_[0-9a-f]{16}$/);
  expect(first.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(Buffer.from(first.secret, 'base64url')).toHaveLength(32);
  expect(first.status).toBe('active');
  expect(first.created_at).toMatch(ISO_MS);

  const second = await issue(slug, {});
  expect(second.kid).not.toBe(first.kid);
  expect(second.secret).not.toBe(first.secret);
  expect(second.created_at > first.created_at).toBe(true);

  const body = await list(slug);
  expect(body.signing_kid).toBe(second.kid);
  expect(body.keys).toEqual([
    { kid: first.kid, status: 'active', created_at: first.created_at, revoked_at: null },
    { kid: second.kid, status: 'active', created_at: second.created_at, revoked_at: null },
  ]);
  expect(JSON.stringify(body)).not.toContain(first.secret);
});

it('stores the secret sealed with DATA_ENCRYPTION_KEY, recoverable to sign assertions', async () => {
  const { slug } = await api.createApplication();
  const issued = await issue(slug);
  const appId = await applicationId(slug);
  const row = await api.store.run((r) => r.assertionKeys.find(appId, issued.kid));
  expect(row).not.toBeNull();
  const sealed = row?.secretSealed ?? '';
  expect(sealed).not.toContain(issued.secret);
  expect(decryptSecret(sealed, api.config.dataEncryptionKey, { purpose: 'assertion-key', id: issued.kid })).toBe(issued.secret);

  // An assertion signed with the recovered secret verifies with the secret the operator was shown.
  const token = await signAssertion({
    kid: issued.kid, secret: decryptSecret(sealed, api.config.dataEncryptionKey, { purpose: 'assertion-key', id: issued.kid }), slug, domainId: '5b0c3f0e-8a0e-4d5e-9d8a-2f0a4b6c7d8e',
    hostname: 'shop.example.com', reference: 'r-1', now: new Date(),
  });
  const [header, payload, signature] = token.split('.') as [string, string, string];
  expect(createHmac('sha256', issued.secret).update(`${header}.${payload}`).digest('base64url')).toBe(signature);
});

it('revokes a key: the previous key, then the deployment key, takes over; repeating answers the record unchanged', async () => {
  const { slug } = await api.createApplication();
  const older = await issue(slug);
  const newer = await issue(slug);

  const revoked = await revoke(slug, newer.kid);
  expect(revoked.status).toBe(200);
  expect(revoked.body).toEqual({ kid: newer.kid, status: 'revoked', created_at: newer.created_at, revoked_at: expect.stringMatching(ISO_MS) });
  expect((await list(slug)).signing_kid).toBe(older.kid);

  const again = await revoke(slug, newer.kid);
  expect(again.status).toBe(200);
  expect(again.body).toEqual(revoked.body);

  await revoke(slug, older.kid);
  const body = await list(slug);
  expect(body.signing_kid).toBe(DEPLOYMENT_KID);
  expect(body.keys.map((k) => [k.kid, k.status])).toEqual([[older.kid, 'revoked'], [newer.kid, 'revoked']]);

  // A key issued after revocations signs at once.
  const next = await issue(slug);
  expect((await list(slug)).signing_kid).toBe(next.kid);
});

it('answers 404 assertion_key_not_found for unknown key ids', async () => {
  const { slug } = await api.createApplication();
  const issued = await issue(slug);
  for (const kid of ['ak_0000000000000000', issued.kid.toUpperCase(), 'deployment', DEPLOYMENT_KID, '%00']) {
    expectError(await revoke(slug, kid), 404, 'assertion_key_not_found');
  }
  expect((await list(slug)).keys[0]?.status).toBe('active');
});

it('refuses a body with fields, or that is not an object', async () => {
  const { slug } = await api.createApplication();
  expectValidationError(await api.operator('POST', keysPath(slug), { kid: 'ak_0000000000000000' }), 'body', 'kid');
  expectValidationError(await api.operator('POST', keysPath(slug), []), 'body', '');
  expect((await list(slug)).keys).toEqual([]);
});

it('answers 404 application_not_found for an unknown application', async () => {
  expectError(await api.operator('GET', keysPath('no-such-app')), 404, 'application_not_found');
  expectError(await api.operator('POST', keysPath('no-such-app')), 404, 'application_not_found');
  expectError(await revoke('no-such-app', 'ak_0000000000000000'), 404, 'application_not_found');
});
