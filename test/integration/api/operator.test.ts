// Operator API: applications and credentials (DECISIONS.md §4), every answer
// checked against the served OpenAPI document by the harness.
import { randomBytes } from 'node:crypto';
import { randomSlug, startTestApi, type Answer, type TestApi } from '../../support/api-harness';

interface Limits {
  live_domains: number;
  api_requests_per_minute: number;
  proxied_requests_per_minute: number;
  proxied_requests_per_second: number;
  credentials: number;
  webhook_subscriptions: number;
  fair_use_bytes_per_month: number;
}

interface Application {
  slug: string;
  name: string;
  status: 'active' | 'suspended';
  plan: string;
  contact_email: string | null;
  limits: Limits;
  live_domains: number;
  created_at: string;
  updated_at: string;
}

interface Credential {
  id: string;
  name: string | null;
  prefix: string;
  status: 'active' | 'revoked' | 'expired';
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  secret?: string;
}

const FREE_LIMITS: Limits = {
  live_domains: 25,
  api_requests_per_minute: 60,
  proxied_requests_per_minute: 600,
  proxied_requests_per_second: 100,
  credentials: 1,
  webhook_subscriptions: 10,
  fair_use_bytes_per_month: 10_000_000_000,
};
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const API_KEY = /^cd_[0-9A-Za-z]{43}$/;
const APPS = '/operator/v1/applications';
const DAY_MS = 24 * 60 * 60 * 1000;

let api: TestApi;

beforeAll(async () => {
  // Several 401s are provoked on purpose; the invalid-credential throttle is not under test here.
  api = await startTestApi({ V1_AUTH_FAILURES_PER_MINUTE: '1000', WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' });
});

afterAll(async () => {
  await api?.close();
});

function expectError(res: Answer, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.details).toEqual(expect.any(Object));
}

function expectValidation(res: Answer, field: string): void {
  expectError(res, 422, 'validation_error');
  const errors = res.body.error.details.errors as Array<Record<string, unknown>>;
  expect(Array.isArray(errors)).toBe(true);
  for (const e of errors) {
    expect(e).toEqual({ location: expect.any(String), field: expect.any(String), message: expect.any(String), type: expect.any(String) });
  }
  expect(errors.map((e) => e.field)).toContain(field);
}

function uniqueHostname(): string {
  return `shop-${randomBytes(4).toString('hex')}.customer-${randomBytes(4).toString('hex')}.com`;
}

async function register(key: string, hostname = uniqueHostname()): Promise<{ id: string; hostname: string }> {
  const res = await api.request('POST', '/v1/domains', { token: key, body: { hostname, reference: 'workspace-1' } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, hostname: res.body.hostname as string };
}

async function v1Status(key: string): Promise<number> {
  return (await api.request('GET', '/v1/domains', { token: key })).status;
}

async function createApp(body: Record<string, unknown>): Promise<Answer<Application>> {
  return api.operator<Application>('POST', APPS, body);
}

async function credentials(slug: string): Promise<Credential[]> {
  const res = await api.operator<Credential[]>('GET', `${APPS}/${slug}/credentials`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('applications', () => {
  test('create with defaults: the resource shape and the free plan limits', async () => {
    const slug = randomSlug();
    const before = Date.now();
    const res = await createApp({ slug, name: 'Acme Shop' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      slug,
      name: 'Acme Shop',
      status: 'active',
      plan: 'free',
      contact_email: null,
      limits: FREE_LIMITS,
      live_domains: 0,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(res.body.created_at)).toBeLessThanOrEqual(Date.now() + 1000);

    const got = await api.operator<Application>('GET', `${APPS}/${slug}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  test('create with plan, contact_email and a partial limits override', async () => {
    const slug = randomSlug();
    const res = await createApp({ slug, name: 'Beta', plan: 'free', contact_email: 'ops@beta.example', limits: { live_domains: 5, credentials: 3 } });
    expect(res.status).toBe(201);
    expect(res.body.contact_email).toBe('ops@beta.example');
    expect(res.body.plan).toBe('free');
    expect(res.body.limits).toEqual({ ...FREE_LIMITS, live_domains: 5, credentials: 3 });
  });

  test('list holds the live applications', async () => {
    const a = randomSlug();
    const b = randomSlug();
    expect((await createApp({ slug: a, name: 'A' })).status).toBe(201);
    expect((await createApp({ slug: b, name: 'B' })).status).toBe(201);
    const res = await api.operator<Application[]>('GET', APPS);
    expect(res.status).toBe(200);
    const slugs = res.body.map((x) => x.slug);
    expect(slugs).toEqual(expect.arrayContaining([a, b]));
    expect(slugs.indexOf(a)).toBeLessThan(slugs.indexOf(b));
    expect(res.body.find((x) => x.slug === a)).toMatchObject({ name: 'A', limits: FREE_LIMITS, live_domains: 0 });
  });

  test.each([
    ['upper case', 'Acme-shop'],
    ['leading hyphen', '-acme'],
    ['one character', 'a'],
    ['64 characters', `a${'b'.repeat(63)}`],
    ['underscore', 'acme_shop'],
    ['space', 'acme shop'],
    ['dot', 'acme.shop'],
    ['empty', ''],
    ['non-ASCII', 'acmé'],
  ])('slug with %s is a validation_error', async (_label, slug) => {
    expectValidation(await createApp({ slug, name: 'X' }), 'slug');
  });

  test('slug of 2 and 63 characters and a trailing hyphen are accepted', async () => {
    const base = randomBytes(3).toString('hex');
    for (const slug of [`${base}-`, `${base}${'x'.repeat(57)}`, base.slice(0, 2)]) {
      const res = await createApp({ slug, name: 'Edge' });
      expect(res.status).toBe(201);
      expect(res.body.slug).toBe(slug);
    }
  });

  test.each([
    ['missing slug', { name: 'X' }, 'slug'],
    ['numeric slug', { slug: 12345, name: 'X' }, 'slug'],
    ['missing name', { slug: randomSlug() }, 'name'],
    ['unknown field', { slug: randomSlug(), name: 'X', colour: 'blue' }, 'colour'],
    ['unknown limit', { slug: randomSlug(), name: 'X', limits: { domains: 3 } }, 'limits.domains'],
    ['string limit', { slug: randomSlug(), name: 'X', limits: { live_domains: '3' } }, 'limits.live_domains'],
    ['negative limit', { slug: randomSlug(), name: 'X', limits: { live_domains: -1 } }, 'limits.live_domains'],
    ['fractional limit', { slug: randomSlug(), name: 'X', limits: { credentials: 1.5 } }, 'limits.credentials'],
    ['unknown plan', { slug: randomSlug(), name: 'X', plan: 'platinum' }, 'plan'],
    ['bad contact_email', { slug: randomSlug(), name: 'X', contact_email: 'not an address' }, 'contact_email'],
    ['status on create', { slug: randomSlug(), name: 'X', status: 'active' }, 'status'],
  ])('create with %s is a validation_error', async (_label, body, field) => {
    expectValidation(await createApp(body), field);
  });

  test('create with a body that is not an object is a validation_error', async () => {
    for (const body of [[], 'acme', 42, null]) {
      expectError(await createApp(body as unknown as Record<string, unknown>), 422, 'validation_error');
    }
  });

  test('a duplicate live slug is 409 application_exists', async () => {
    const slug = randomSlug();
    expect((await createApp({ slug, name: 'First' })).status).toBe(201);
    expectError(await createApp({ slug, name: 'Second' }), 409, 'application_exists');
    expect((await api.operator<Application>('GET', `${APPS}/${slug}`)).body.name).toBe('First');
  });

  test('an unknown slug is 404 application_not_found everywhere', async () => {
    const slug = randomSlug('missing');
    expectError(await api.operator('GET', `${APPS}/${slug}`), 404, 'application_not_found');
    expectError(await api.operator('PATCH', `${APPS}/${slug}`, { name: 'X' }), 404, 'application_not_found');
    expectError(await api.request('DELETE', `${APPS}/${slug}?confirm=${slug}`, { token: api.operatorToken }), 404, 'application_not_found');
    expectError(await api.operator('GET', `${APPS}/${slug}/credentials`), 404, 'application_not_found');
    expectError(await api.operator('POST', `${APPS}/${slug}/credentials`, {}), 404, 'application_not_found');
  });

  test('PATCH changes fields and merges limits key by key', async () => {
    const slug = randomSlug();
    const created = await createApp({ slug, name: 'Old', limits: { live_domains: 7 } });
    expect(created.status).toBe(201);

    const patched = await api.operator<Application>('PATCH', `${APPS}/${slug}`, {
      name: 'New', contact_email: 'team@new.example', limits: { api_requests_per_minute: 120 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ slug, name: 'New', contact_email: 'team@new.example', status: 'active', plan: 'free' });
    expect(patched.body.limits).toEqual({ ...FREE_LIMITS, live_domains: 7, api_requests_per_minute: 120 });
    expect(patched.body.created_at).toBe(created.body.created_at);
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));

    const again = await api.operator<Application>('PATCH', `${APPS}/${slug}`, { limits: { live_domains: 9, fair_use_bytes_per_month: 5 } });
    expect(again.body.limits).toEqual({ ...FREE_LIMITS, live_domains: 9, api_requests_per_minute: 120, fair_use_bytes_per_month: 5 });
    expect(again.body.name).toBe('New');
    expect(again.body.contact_email).toBe('team@new.example');

    const cleared = await api.operator<Application>('PATCH', `${APPS}/${slug}`, { contact_email: null });
    expect(cleared.body.contact_email).toBeNull();
    expect((await api.operator<Application>('GET', `${APPS}/${slug}`)).body).toEqual(cleared.body);
  });

  test.each([
    ['slug', { slug: 'other-slug' }],
    ['an unknown field', { colour: 'red' }],
    ['an unknown status', { status: 'deleted' }],
    ['an unknown limit', { limits: { domains: 1 } }],
    ['a string limit', { limits: { credentials: '2' } }],
    ['an empty name', { name: '' }],
  ])('PATCH with %s is a validation_error', async (_label, body) => {
    const slug = randomSlug();
    expect((await createApp({ slug, name: 'Stable' })).status).toBe(201);
    expectError(await api.operator('PATCH', `${APPS}/${slug}`, body), 422, 'validation_error');
    expect((await api.operator<Application>('GET', `${APPS}/${slug}`)).body).toMatchObject({ slug, name: 'Stable', status: 'active', limits: FREE_LIMITS });
  });

  test('suspend gives 403 application_suspended on /v1, resume restores access', async () => {
    const { slug, key } = await api.createApplication();
    expect(await v1Status(key)).toBe(200);

    const suspended = await api.operator<Application>('PATCH', `${APPS}/${slug}`, { status: 'suspended' });
    expect(suspended.status).toBe(200);
    expect(suspended.body.status).toBe('suspended');
    expectError(await api.request('GET', '/v1/domains', { token: key }), 403, 'application_suspended');
    expectError(await api.request('POST', '/v1/domains', { token: key, body: { hostname: uniqueHostname(), reference: 'w' } }), 403, 'application_suspended');

    const resumed = await api.operator<Application>('PATCH', `${APPS}/${slug}`, { status: 'active' });
    expect(resumed.body.status).toBe('active');
    expect(await v1Status(key)).toBe(200);
  });

  test('live_domains counts live domains only', async () => {
    const { slug, key } = await api.createApplication();
    const one = await register(key);
    await register(key);
    expect((await api.operator<Application>('GET', `${APPS}/${slug}`)).body.live_domains).toBe(2);
    expect((await api.request('DELETE', `/v1/domains/${one.id}`, { token: key })).status).toBe(202);
    expect((await api.operator<Application>('GET', `${APPS}/${slug}`)).body.live_domains).toBe(1);
    const listed = (await api.operator<Application[]>('GET', APPS)).body.find((a) => a.slug === slug);
    expect(listed?.live_domains).toBe(1);
  });
});

describe('application deletion', () => {
  const del = (slug: string, query: string) => api.request('DELETE', `${APPS}/${slug}${query}`, { token: api.operatorToken });

  test('without live domains: confirm is required, then 200 and the slug is gone', async () => {
    const { slug, key } = await api.createApplication();
    expectError(await del(slug, ''), 422, 'confirmation_required');
    expectError(await del(slug, '?confirm='), 422, 'confirmation_required');
    expectError(await del(slug, `?confirm=${slug}x`), 422, 'confirmation_required');
    expectError(await del(slug, `?confirm=${slug.toUpperCase()}`), 422, 'confirmation_required');
    expect((await api.operator('GET', `${APPS}/${slug}`)).status).toBe(200);
    expect(await v1Status(key)).toBe(200);

    const before = Date.now();
    const res = await del(slug, `?confirm=${slug}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ slug, deleted_at: expect.stringMatching(ISO_MS), domains_deleted: 0 });
    expect(Date.parse(res.body.deleted_at)).toBeGreaterThanOrEqual(before - 1000);
    expectError(await api.operator('GET', `${APPS}/${slug}`), 404, 'application_not_found');
    expectError(await del(slug, `?confirm=${slug}`), 404, 'application_not_found');
    expect((await api.operator<Application[]>('GET', APPS)).body.map((a) => a.slug)).not.toContain(slug);
    expectError(await api.request('GET', '/v1/domains', { token: key }), 401, 'unauthorized');
  });

  test('with live domains: refused without delete_domains=true, then everything is freed', async () => {
    const { slug, key } = await api.createApplication();
    const domains = [await register(key), await register(key)];
    const other = await api.createApplication();

    // Confirmation problems are reported even when delete_domains is right.
    expectError(await del(slug, '?delete_domains=true'), 422, 'confirmation_required');
    expectError(await del(slug, `?confirm=${slug}-no&delete_domains=true`), 422, 'confirmation_required');
    expectError(await del(slug, `?confirm=${slug}`), 409, 'application_has_live_domains');
    expectError(await del(slug, `?confirm=${slug}&delete_domains=false`), 409, 'application_has_live_domains');
    expectValidation(await del(slug, `?confirm=${slug}&delete_domains=yes`), 'delete_domains');
    expectValidation(await del(slug, `?confirm=${slug}&delete_domains=1`), 'delete_domains');
    expectValidation(await del(slug, `?confirm=${slug}&delete_domains=TRUE`), 'delete_domains');
    const still = await api.operator<Application>('GET', `${APPS}/${slug}`);
    expect(still.status).toBe(200);
    expect(still.body.live_domains).toBe(2);

    const res = await del(slug, `?confirm=${slug}&delete_domains=true`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ slug, deleted_at: expect.stringMatching(ISO_MS), domains_deleted: 2 });

    // Hostnames are free at once for another application.
    for (const d of domains) {
      const claimed = await api.request('POST', '/v1/domains', { token: other.key, body: { hostname: d.hostname, reference: 'new-owner' } });
      expect(claimed.status).toBe(201);
      expect(claimed.body.hostname).toBe(d.hostname);
    }
    expectError(await api.request('GET', '/v1/domains', { token: key }), 401, 'unauthorized');
    expectError(await api.request('GET', `/v1/domains/${domains[0]?.id}`, { token: key }), 401, 'unauthorized');
    expectError(await api.operator('GET', `${APPS}/${slug}`), 404, 'application_not_found');
    expectError(await api.operator('GET', `${APPS}/${slug}/credentials`), 404, 'application_not_found');
  });

  test('revokes the application\'s webhook subscriptions', async () => {
    const { slug, key } = await api.createApplication();
    const hook = await api.request('POST', '/v1/webhooks', { token: key, body: { url: 'https://127.0.0.1:9/hook', events: ['domain.ready'] } });
    expect(hook.status).toBe(201);
    const app = await api.store.run((r) => r.applications.findLiveBySlug(slug));
    expect((await del(slug, `?confirm=${slug}`)).status).toBe(200);
    const [subscription] = await api.store.run((r) => r.webhookSubscriptions.list(app!.id));
    expect(subscription).toMatchObject({ id: hook.body.id, status: 'revoked' });
    expect(subscription?.revokedAt).toBeInstanceOf(Date);
  });

  test('a deleted slug can be reused by a new application', async () => {
    const first = await api.createApplication(undefined, { live_domains: 3 });
    const domain = await register(first.key);
    expect((await del(first.slug, `?confirm=${first.slug}&delete_domains=true`)).status).toBe(200);

    const again = await createApp({ slug: first.slug, name: 'Second life' });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ slug: first.slug, name: 'Second life', status: 'active', live_domains: 0, limits: FREE_LIMITS });
    expect(await credentials(first.slug)).toEqual([]);
    // The old key does not come back with the slug.
    expectError(await api.request('GET', '/v1/domains', { token: first.key }), 401, 'unauthorized');

    const issued = await api.operator<Credential>('POST', `${APPS}/${first.slug}/credentials`, {});
    expect(issued.status).toBe(201);
    const list = await api.request('GET', '/v1/domains?include_deleted=true', { token: issued.body.secret });
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([]);
    expect((await register(issued.body.secret as string, domain.hostname)).hostname).toBe(domain.hostname);
  });
});

describe('credentials', () => {
  const path = (slug: string, rest = '') => `${APPS}/${slug}/credentials${rest}`;

  test('issue shows the secret once; list never shows it', async () => {
    const slug = randomSlug();
    expect((await createApp({ slug, name: 'Keys' })).status).toBe(201);
    expect(await credentials(slug)).toEqual([]);

    const issued = await api.operator<Credential>('POST', path(slug), { name: 'ci' });
    expect(issued.status).toBe(201);
    expect(issued.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      name: 'ci',
      prefix: expect.any(String),
      status: 'active',
      created_at: expect.stringMatching(ISO_MS),
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
      secret: expect.stringMatching(API_KEY),
    });
    const secret = issued.body.secret as string;
    expect(issued.body.prefix).toBe(secret.slice(0, 8));

    const listed = await credentials(slug);
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('secret');
    const { secret: _s, ...withoutSecret } = issued.body;
    expect(listed[0]).toEqual(withoutSecret);
    expect(JSON.stringify(listed)).not.toContain(secret);

    expect(await v1Status(secret)).toBe(200);
    const used = await credentials(slug);
    expect(used[0]?.last_used_at).toEqual(expect.stringMatching(ISO_MS));
  });

  test('issue without a body, and refusals of a bad body', async () => {
    const slug = randomSlug();
    expect((await createApp({ slug, name: 'Keys', limits: { credentials: 5 } })).status).toBe(201);
    const bare = await api.request<Credential>('POST', path(slug), { token: api.operatorToken });
    expect(bare.status).toBe(201);
    expect(bare.body.name).toBeNull();
    expect(bare.body.secret).toMatch(API_KEY);
    expectValidation(await api.operator('POST', path(slug), { name: 42 }), 'name');
    expectValidation(await api.operator('POST', path(slug), { label: 'x' }), 'label');
    expect(await credentials(slug)).toHaveLength(1);
  });

  test('a second credential on the free plan is 409 credential_limit_reached', async () => {
    const { slug } = await api.createApplication();
    const res = await api.operator('POST', path(slug), {});
    expectError(res, 409, 'credential_limit_reached');
    expect(await credentials(slug)).toHaveLength(1);
  });

  test('rotate: a new credential, the old one valid for 24 hours, both keys work', async () => {
    const { slug, key } = await api.createApplication();
    const [old] = await credentials(slug);
    expect(old).toBeDefined();
    const oldId = (old as Credential).id;

    const before = Date.now();
    const rotated = await api.operator<Credential>('POST', path(slug, `/${oldId}/rotate`), { name: 'next' });
    const after = Date.now();
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ name: 'next', status: 'active', expires_at: null, revoked_at: null });
    const newKey = rotated.body.secret as string;
    expect(newKey).toMatch(API_KEY);
    expect(newKey).not.toBe(key);
    expect(rotated.body.id).not.toBe(oldId);

    const listed = await credentials(slug);
    expect(listed.map((c) => c.id).sort()).toEqual([oldId, rotated.body.id].sort());
    const oldNow = listed.find((c) => c.id === oldId) as Credential;
    expect(oldNow.status).toBe('active');
    expect(oldNow.expires_at).toMatch(ISO_MS);
    const expires = Date.parse(oldNow.expires_at as string);
    expect(expires).toBeGreaterThanOrEqual(before + DAY_MS - 1000);
    expect(expires).toBeLessThanOrEqual(after + DAY_MS + 1000);

    expect(await v1Status(key)).toBe(200);
    expect(await v1Status(newKey)).toBe(200);

    expectError(await api.operator('POST', path(slug, `/${oldId}/rotate`), {}), 409, 'invalid_status_transition');
    // The overlap credential is the only extra place: a further rotation would exceed it.
    expectError(await api.operator('POST', path(slug, `/${rotated.body.id}/rotate`), {}), 409, 'credential_limit_reached');
    expectError(await api.operator('POST', path(slug), {}), 409, 'credential_limit_reached');
    expect(await credentials(slug)).toHaveLength(2);
  });

  test('revoke: 200 revoked and 401 at once; revoked ones free their place', async () => {
    const { slug, key } = await api.createApplication();
    const [cred] = await credentials(slug);
    const id = (cred as Credential).id;

    const revoked = await api.operator<Credential>('POST', path(slug, `/${id}/revoke`), {});
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id, status: 'revoked', revoked_at: expect.stringMatching(ISO_MS) });
    expect(revoked.body).not.toHaveProperty('secret');
    expectError(await api.request('GET', '/v1/domains', { token: key }), 401, 'unauthorized');
    expect((await credentials(slug))[0]?.status).toBe('revoked');
    expectError(await api.operator('POST', path(slug, `/${id}/rotate`), {}), 409, 'invalid_status_transition');

    const fresh = await api.operator<Credential>('POST', path(slug), {});
    expect(fresh.status).toBe(201);
    expect(await v1Status(fresh.body.secret as string)).toBe(200);
    expectError(await api.request('GET', '/v1/domains', { token: key }), 401, 'unauthorized');
  });

  test('revoking the overlap credential ends it before its 24 hours', async () => {
    const { slug, key } = await api.createApplication();
    const oldId = ((await credentials(slug))[0] as Credential).id;
    const rotated = await api.operator<Credential>('POST', path(slug, `/${oldId}/rotate`));
    expect(rotated.status).toBe(201);
    expect((await api.operator('POST', path(slug, `/${oldId}/revoke`))).status).toBe(200);
    expectError(await api.request('GET', '/v1/domains', { token: key }), 401, 'unauthorized');
    expect(await v1Status(rotated.body.secret as string)).toBe(200);
  });

  test('delete: 204, then 404 credential_not_found', async () => {
    const { slug, key } = await api.createApplication();
    const id = ((await credentials(slug))[0] as Credential).id;
    const res = await api.request('DELETE', path(slug, `/${id}`), { token: api.operatorToken });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await credentials(slug)).toEqual([]);
    expectError(await api.request('GET', '/v1/domains', { token: key }), 401, 'unauthorized');
    expectError(await api.request('DELETE', path(slug, `/${id}`), { token: api.operatorToken }), 404, 'credential_not_found');
    expectError(await api.operator('POST', path(slug, `/${id}/revoke`), {}), 404, 'credential_not_found');
    expectError(await api.operator('POST', path(slug, `/${id}/rotate`), {}), 404, 'credential_not_found');
  });

  test.each(['not-a-uuid', '12345', '00000000-0000-0000-0000-00000000000g', "x'or'1'='1"])(
    'a credential id %s that is not a uuid is 404 credential_not_found',
    async (id) => {
      const { slug } = await api.createApplication();
      const encoded = encodeURIComponent(id);
      expectError(await api.operator('POST', path(slug, `/${encoded}/revoke`), {}), 404, 'credential_not_found');
      expectError(await api.operator('POST', path(slug, `/${encoded}/rotate`), {}), 404, 'credential_not_found');
      expectError(await api.request('DELETE', path(slug, `/${encoded}`), { token: api.operatorToken }), 404, 'credential_not_found');
    },
  );

  test("another application's credential id is 404 credential_not_found", async () => {
    const a = await api.createApplication();
    const b = await api.createApplication();
    const aId = ((await credentials(a.slug))[0] as Credential).id;
    expectError(await api.operator('POST', path(b.slug, `/${aId}/revoke`), {}), 404, 'credential_not_found');
    expectError(await api.operator('POST', path(b.slug, `/${aId}/rotate`), {}), 404, 'credential_not_found');
    expectError(await api.request('DELETE', path(b.slug, `/${aId}`), { token: api.operatorToken }), 404, 'credential_not_found');
    expect((await credentials(b.slug)).map((c) => c.id)).not.toContain(aId);
    const aNow = await credentials(a.slug);
    expect(aNow).toEqual([expect.objectContaining({ id: aId, status: 'active', expires_at: null })]);
    expect(await v1Status(a.key)).toBe(200);
  });
});
