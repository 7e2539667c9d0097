// Tenant isolation: every application-scoped operator path, called under one
// application with another application's ids, answers 404 and changes nothing;
// every /v1 (and legacy) domain path does the same with another application's
// domain id, and every /v1/webhooks path with another application's webhook id.
import { expectError, startTestApi, type TestApi } from '../../support/api-harness';

const APPS = '/operator/v1/applications';
const UNLIMITED = { api_requests_per_minute: 100_000, credentials: 5 };

interface Tenant {
  slug: string;
  key: string;
  credentialId: string;
  originId: string;
  kid: string;
  domainId: string;
  webhookId: string;
}

let api: TestApi;
let mine: Tenant;
let theirs: Tenant;

async function tenant(name: string): Promise<Tenant> {
  const { slug, key } = await api.createApplication(undefined, UNLIMITED);
  const credentials = await api.operator('GET', `${APPS}/${slug}/credentials`);
  const origin = await api.operator('POST', `${APPS}/${slug}/origins`, { url: 'http://127.0.0.1:9' });
  const assertionKey = await api.operator('POST', `${APPS}/${slug}/assertion-keys`);
  const domain = await api.request('POST', '/v1/domains', { token: key, body: { hostname: `${name}.isolation.example.com`, reference: name } });
  const webhook = await api.request('POST', '/v1/webhooks', { token: key, body: { url: `https://127.0.0.1:9/${name}`, events: ['domain.ready'] } });
  if (origin.status !== 201 || assertionKey.status !== 201 || domain.status !== 201 || webhook.status !== 201) throw new Error(`set-up of ${name} failed`);
  // Verified, so that activate would succeed if the id were looked up in the wrong application.
  const app = await api.store.run((r) => r.applications.findLiveBySlug(slug));
  await api.store.run((r) => r.origins.update(app?.id ?? '', origin.body.id, { status: 'verified' }));
  await api.store.run((r) => r.traffic.addTraffic(app?.id ?? '', new Date().toISOString().slice(0, 10), 7, 700));
  return { slug, key, credentialId: credentials.body[0].id, originId: origin.body.id, kid: assertionKey.body.kid, domainId: domain.body.id, webhookId: webhook.body.id };
}

beforeAll(async () => {
  api = await startTestApi({ V1_AUTH_FAILURES_PER_MINUTE: '1000', WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' });
  mine = await tenant('mine');
  theirs = await tenant('theirs');
});

afterAll(async () => {
  await api?.close();
});

it("answers 404 for another application's credential, origin and assertion key ids", async () => {
  const base = `${APPS}/${mine.slug}`;
  const calls: Array<[string, string, string, unknown?]> = [
    ['POST', `${base}/credentials/${theirs.credentialId}/rotate`, 'credential_not_found', {}],
    ['POST', `${base}/credentials/${theirs.credentialId}/revoke`, 'credential_not_found'],
    ['DELETE', `${base}/credentials/${theirs.credentialId}`, 'credential_not_found'],
    ['POST', `${base}/origins/${theirs.originId}/verify`, 'origin_not_found', {}],
    ['POST', `${base}/origins/${theirs.originId}/activate`, 'origin_not_found'],
    ['POST', `${base}/origins/${theirs.originId}/retire`, 'origin_not_found'],
    ['DELETE', `${base}/origins/${theirs.originId}`, 'origin_not_found'],
    ['POST', `${base}/assertion-keys/${theirs.kid}/revoke`, 'assertion_key_not_found'],
  ];
  for (const [method, path, code, body] of calls) expectError(await api.operator(method, path, body), 404, code);

  // Their resources are untouched.
  const theirBase = `${APPS}/${theirs.slug}`;
  expect((await api.operator('GET', `${theirBase}/credentials`)).body.map((c: { id: string; status: string }) => [c.id, c.status]))
    .toEqual([[theirs.credentialId, 'active']]);
  expect((await api.operator('GET', `${theirBase}/origins`)).body.map((o: { id: string; status: string }) => [o.id, o.status]))
    .toEqual([[theirs.originId, 'verified']]);
  expect((await api.operator('GET', `${theirBase}/assertion-keys`)).body).toMatchObject({ signing_kid: theirs.kid, keys: [{ kid: theirs.kid, status: 'active' }] });
  expect((await api.request('GET', '/v1/domains', { token: theirs.key })).body.items.map((d: { id: string }) => d.id)).toEqual([theirs.domainId]);
});

it('lists only the application’s own credentials, origins, assertion keys and traffic', async () => {
  const base = `${APPS}/${mine.slug}`;
  expect((await api.operator('GET', `${base}/credentials`)).body.map((c: { id: string }) => c.id)).toEqual([mine.credentialId]);
  expect((await api.operator('GET', `${base}/origins`)).body.map((o: { id: string }) => o.id)).toEqual([mine.originId]);
  expect((await api.operator('GET', `${base}/assertion-keys`)).body.keys.map((k: { kid: string }) => k.kid)).toEqual([mine.kid]);
  expect((await api.operator('GET', `${base}/traffic?days=1`)).body.totals).toEqual({ requests: 7, response_bytes: 700 });
  expect((await api.operator('GET', `${base}`)).body).toMatchObject({ slug: mine.slug, live_domains: 1 });
});

it("answers 404 domain_not_found for another application's domain on every /v1 and legacy path", async () => {
  for (const prefix of ['/v1/domains', '/domains']) {
    const path = `${prefix}/${theirs.domainId}`;
    const calls: Array<[string, string]> = [
      ['GET', path],
      ['GET', `${path}?include_deleted=true`],
      ['POST', `${path}/checks`],
      ['DELETE', path],
    ];
    for (const [method, url] of calls) expectError(await api.request(method, url, { token: mine.key }), 404, 'domain_not_found');
    const list = await api.request('GET', `${prefix}?include_deleted=true&reference=theirs`, { token: mine.key });
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([]);
  }
  const theirDomain = await api.request('GET', `/v1/domains/${theirs.domainId}`, { token: theirs.key });
  expect(theirDomain.body).toMatchObject({ id: theirs.domainId, status: 'pending_dns', deleted_at: null });
});

it("answers 404 application_not_found on every application path of a deleted application, whose ids stay unreachable", async () => {
  const gone = await tenant('gone');
  const deleted = await api.operator('DELETE', `${APPS}/${gone.slug}?confirm=${gone.slug}&delete_domains=true`);
  expect(deleted.status).toBe(200);
  const base = `${APPS}/${gone.slug}`;
  const calls: Array<[string, string, unknown?]> = [
    ['GET', base],
    ['PATCH', base, { name: 'Renamed' }],
    ['DELETE', `${base}?confirm=${gone.slug}`],
    ['GET', `${base}/credentials`],
    ['POST', `${base}/credentials`, {}],
    ['POST', `${base}/credentials/${gone.credentialId}/rotate`, {}],
    ['POST', `${base}/credentials/${gone.credentialId}/revoke`],
    ['DELETE', `${base}/credentials/${gone.credentialId}`],
    ['GET', `${base}/origins`],
    ['POST', `${base}/origins`, { url: 'http://127.0.0.1:9' }],
    ['POST', `${base}/origins/${gone.originId}/verify`, {}],
    ['POST', `${base}/origins/${gone.originId}/activate`],
    ['POST', `${base}/origins/${gone.originId}/retire`],
    ['DELETE', `${base}/origins/${gone.originId}`],
    ['GET', `${base}/assertion-keys`],
    ['POST', `${base}/assertion-keys`],
    ['POST', `${base}/assertion-keys/${gone.kid}/revoke`],
    ['GET', `${base}/traffic`],
  ];
  for (const [method, path, body] of calls) expectError(await api.operator(method, path, body), 404, 'application_not_found');

  // A new application under the same slug sees none of the old one's resources.
  await api.operator('POST', APPS, { slug: gone.slug, name: 'Second life' });
  expectError(await api.operator('POST', `${base}/credentials/${gone.credentialId}/revoke`), 404, 'credential_not_found');
  expectError(await api.operator('POST', `${base}/origins/${gone.originId}/retire`), 404, 'origin_not_found');
  expectError(await api.operator('POST', `${base}/assertion-keys/${gone.kid}/revoke`), 404, 'assertion_key_not_found');
  expect((await api.operator('GET', `${base}/origins`)).body).toEqual([]);
  expect((await api.operator('GET', `${base}/assertion-keys`)).body.keys).toEqual([]);
  expect((await api.operator('GET', `${base}/traffic?days=1`)).body.totals).toEqual({ requests: 0, response_bytes: 0 });
  expectError(await api.request('GET', `/v1/domains/${gone.domainId}`, { token: mine.key }), 404, 'domain_not_found');
});

it("answers 404 webhook_not_found for another application's webhook on every /v1/webhooks path", async () => {
  const hook = `/v1/webhooks/${theirs.webhookId}`;
  const calls: Array<[string, string]> = [
    ['DELETE', hook],
    ['POST', `${hook}/rotate`],
    ['GET', `${hook}/deliveries`],
    ['POST', `${hook}/deliveries/00000000-0000-4000-8000-000000000000/replay`],
    ['POST', `${hook}/replay?since=2020-01-01T00:00:00Z`],
  ];
  for (const [method, path] of calls) expectError(await api.request(method, path, { token: mine.key }), 404, 'webhook_not_found');
  const theirHooks = await api.request('GET', '/v1/webhooks', { token: theirs.key });
  expect(theirHooks.body.map((w: { id: string; status: string }) => [w.id, w.status])).toEqual([[theirs.webhookId, 'active']]);
  const myHooks = await api.request('GET', '/v1/webhooks', { token: mine.key });
  expect(myHooks.body.map((w: { id: string }) => w.id)).toEqual([mine.webhookId]);
});
