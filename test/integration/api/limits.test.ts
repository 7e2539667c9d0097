// Live-domain limits: per application (Free default 25, exact under 50
// concurrent creates) and per deployment (DEPLOYMENT_DOMAIN_LIMIT).
import { expectError, startTestApi, type TestApi } from '../../support/api-harness';

const FAST = { api_requests_per_minute: 100_000 };

async function createDomain(api: TestApi, token: string, hostname: string) {
  return api.request('POST', '/v1/domains', { token, body: { hostname, reference: 'ws' } });
}

async function liveIds(api: TestApi, token: string): Promise<string[]> {
  const page = await api.request('GET', '/v1/domains?limit=200', { token });
  expect(page.status).toBe(200);
  return (page.body.items as Array<{ id: string }>).map((d) => d.id);
}

describe('application live-domain limit', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.close());

  it('creates exactly 25 of 50 concurrent creates (Free default); the rest get domain_limit_reached', async () => {
    const { key, slug } = await api.createApplication(undefined, FAST);
    const app = await api.operator('GET', `/operator/v1/applications/${slug}`);
    expect(app.body.limits.live_domains).toBe(25);

    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => createDomain(api, key, `burst-${i}.example.com`)));
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(25);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(expectError(refused, 409, 'domain_limit_reached')).toEqual({ scope: 'application', limit: 25, live: 25 });
    }
    const ids = await liveIds(api, key);
    expect(ids.sort()).toEqual(created.map((a) => a.body.id as string).sort());
    expect((await api.operator('GET', `/operator/v1/applications/${slug}`)).body.live_domains).toBe(25);

    // Existing domains are unaffected by the refusals; a delete frees a slot at once.
    const refusedHost = 'after-limit.example.com';
    expectError(await createDomain(api, key, refusedHost), 409, 'domain_limit_reached');
    expect((await api.request('DELETE', `/v1/domains/${ids[0]}`, { token: key })).status).toBe(202);
    expect((await createDomain(api, key, refusedHost)).status).toBe(201);
    const details = expectError(await createDomain(api, key, 'one-too-many.example.com'), 409, 'domain_limit_reached');
    expect(details).toEqual({ scope: 'application', limit: 25, live: 25 });
  });

  it('follows a limit changed by the operator', async () => {
    const { key, slug } = await api.createApplication(undefined, { ...FAST, live_domains: 2 });
    expect((await createDomain(api, key, 'small-1.example.com')).status).toBe(201);
    expect((await createDomain(api, key, 'small-2.example.com')).status).toBe(201);
    expect(expectError(await createDomain(api, key, 'small-3.example.com'), 409, 'domain_limit_reached')).toEqual({ scope: 'application', limit: 2, live: 2 });
    expect((await api.operator('PATCH', `/operator/v1/applications/${slug}`, { limits: { live_domains: 3 } })).status).toBe(200);
    expect((await createDomain(api, key, 'small-3.example.com')).status).toBe(201);
    expect(expectError(await createDomain(api, key, 'small-4.example.com'), 409, 'domain_limit_reached')).toEqual({ scope: 'application', limit: 3, live: 3 });
  });
});

describe('deployment live-domain limit', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ DEPLOYMENT_DOMAIN_LIMIT: '3' });
  });
  afterAll(() => api?.close());

  it('holds under concurrent creates from two applications', async () => {
    const a = await api.createApplication(undefined, FAST);
    const b = await api.createApplication(undefined, FAST);
    const token = (i: number) => (i % 2 ? a.key : b.key);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => createDomain(api, token(i), `dep-race-${i}.example.com`)));
    expect(answers.filter((x) => x.status === 201)).toHaveLength(3);
    for (const refused of answers.filter((x) => x.status !== 201)) {
      expect(expectError(refused, 409, 'domain_limit_reached')).toEqual({ scope: 'deployment', limit: 3, live: 3 });
    }
    // Leave the deployment empty for the next test.
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 201) expect((await api.request('DELETE', `/v1/domains/${answer.body.id}`, { token: token(i) })).status).toBe(202);
    }
  });

  it('counts live domains of every application; deleting frees a slot', async () => {
    const a = await api.createApplication(undefined, FAST);
    const b = await api.createApplication(undefined, FAST);
    const a1 = await createDomain(api, a.key, 'dep-a1.example.com');
    expect(a1.status).toBe(201);
    expect((await createDomain(api, a.key, 'dep-a2.example.com')).status).toBe(201);
    expect((await createDomain(api, b.key, 'dep-b1.example.com')).status).toBe(201);

    const deployment = { scope: 'deployment', limit: 3, live: 3 };
    expect(expectError(await createDomain(api, b.key, 'dep-b2.example.com'), 409, 'domain_limit_reached')).toEqual(deployment);
    expect(expectError(await createDomain(api, a.key, 'dep-a3.example.com'), 409, 'domain_limit_reached')).toEqual(deployment);
    expect((await liveIds(api, a.key))).toHaveLength(2);
    expect((await liveIds(api, b.key))).toHaveLength(1);

    expect((await api.request('DELETE', `/v1/domains/${a1.body.id}`, { token: a.key })).status).toBe(202);
    expect((await createDomain(api, b.key, 'dep-b2.example.com')).status).toBe(201);
    expect(expectError(await createDomain(api, a.key, 'dep-a3.example.com'), 409, 'domain_limit_reached')).toEqual(deployment);
  });
});
