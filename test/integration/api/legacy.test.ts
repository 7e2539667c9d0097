// The legacy /domains API: /v1/domains mounted a second time plus deprecation
// headers on every answer; ENABLE_LEGACY_API=false turns it off.
import { randomUUID } from 'node:crypto';
import { expectError, expectValidationError, startTestApi, type Answer, type TestApi } from '../../support/api-harness';

const FAST = { api_requests_per_minute: 100_000 };
const SUCCESSOR_LINK = '</v1/domains>; rel="successor-version"';

function expectDeprecated(answer: Answer): void {
  expect(answer.headers.get('deprecation')).toBe('true');
  expect(answer.headers.get('link')).toBe(SUCCESSOR_LINK);
  const sunset = answer.headers.get('sunset');
  expect(sunset).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  expect(Number.isNaN(Date.parse(sunset as string))).toBe(false);
}

describe('legacy /domains', () => {
  let api: TestApi;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    api = await startTestApi();
    key = (await api.createApplication(undefined, FAST)).key;
    otherKey = (await api.createApplication(undefined, FAST)).key;
  });
  afterAll(() => api?.close());

  it('serves the whole domain lifecycle with deprecation headers on every answer', async () => {
    const created = await api.request('POST', '/domains', { token: key, body: { hostname: 'Legacy.Example.com', reference: 'ws-legacy', metadata: { a: 1 } } });
    expect(created.status).toBe(201);
    expectDeprecated(created);
    expect(created.body).toMatchObject({ hostname: 'legacy.example.com', reference: 'ws-legacy', status: 'pending_dns', metadata: { a: 1 }, deleted_at: null });
    expect(created.body.dns_records.map((r: { type: string }) => r.type)).toEqual(['TXT', 'CNAME']);
    const id = created.body.id as string;

    const listed = await api.request('GET', '/domains?reference=ws-legacy', { token: key });
    expect(listed.status).toBe(200);
    expectDeprecated(listed);
    expect(listed.body).toEqual({ items: [created.body], limit: 50, offset: 0 });

    const read = await api.request('GET', `/domains/${id}`, { token: key });
    expect(read.status).toBe(200);
    expectDeprecated(read);
    expect(read.body).toEqual(created.body);

    const recheck = await api.request('POST', `/domains/${id}/checks`, { token: key });
    expect(recheck.status).toBe(202);
    expectDeprecated(recheck);
    expect(recheck.body).toEqual(created.body);
    const again = await api.request('POST', `/domains/${id}/checks`, { token: key });
    expectError(again, 429, 'rate_limited');
    expectDeprecated(again);
    expect(again.headers.get('retry-after')).toMatch(/^\d+$/);

    const deleted = await api.request('DELETE', `/domains/${id}`, { token: key });
    expect(deleted.status).toBe(202);
    expectDeprecated(deleted);
    expect(deleted.body).toMatchObject({ id, status: 'deleting', dns_records: [] });
    expect(deleted.body.deleted_at).not.toBeNull();
    const repeat = await api.request('DELETE', `/domains/${id}`, { token: key });
    expect(repeat.status).toBe(202);
    expect(repeat.body).toEqual(deleted.body);

    expectError(await api.request('GET', `/domains/${id}`, { token: key }), 404, 'domain_not_found');
    const shown = await api.request('GET', `/domains/${id}?include_deleted=true`, { token: key });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(deleted.body);
    expectError(await api.request('POST', `/domains/${id}/checks`, { token: key }), 409, 'invalid_status_transition');
  });

  it('shares data and claims with /v1/domains', async () => {
    const v1 = await api.request('POST', '/v1/domains', { token: key, body: { hostname: 'shared.example.com', reference: 'ws' } });
    expect(v1.status).toBe(201);
    expect(v1.headers.get('deprecation')).toBeNull();
    const viaLegacy = await api.request('GET', `/domains/${v1.body.id}`, { token: key });
    expect(viaLegacy.status).toBe(200);
    expect(viaLegacy.body).toEqual(v1.body);
    expectError(await api.request('POST', '/domains', { token: otherKey, body: { hostname: 'shared.example.com', reference: 'ws' } }), 409, 'hostname_already_claimed');

    const legacy = await api.request('POST', '/domains', { token: key, body: { hostname: 'shared-2.example.com', reference: 'ws' } });
    expect(legacy.status).toBe(201);
    expect((await api.request('GET', `/v1/domains/${legacy.body.id}`, { token: key })).body).toEqual(legacy.body);
    expectError(await api.request('GET', `/domains/${legacy.body.id}`, { token: otherKey }), 404, 'domain_not_found');
  });

  it('applies the same refusals, each with deprecation headers', async () => {
    const answers: Array<[Answer, number, string]> = [
      [await api.request('GET', '/domains'), 401, 'unauthorized'],
      [await api.request('GET', `/domains?api_key=${key}`), 401, 'unauthorized'],
      [await api.request('POST', '/domains', { token: key, body: { hostname: 'example.com', reference: 'ws' } }), 422, 'apex_not_supported'],
      [await api.request('POST', '/domains', { token: key, body: { hostname: '*.example.com', reference: 'ws' } }), 422, 'wildcard_not_supported'],
      [await api.request('POST', '/domains', { token: key, body: { hostname: 'ref.example.com', reference: '' } }), 422, 'invalid_reference'],
      [await api.request('GET', `/domains/${randomUUID()}`, { token: key }), 404, 'domain_not_found'],
      [await api.request('GET', '/domains/nope', { token: key }), 404, 'domain_not_found'],
    ];
    for (const [answer, status, code] of answers) {
      expectError(answer, status, code);
      expectDeprecated(answer);
    }
    const unknownField = await api.request('POST', '/domains', { token: key, body: { hostname: 'x.example.com', reference: 'ws', extra: 1 } });
    expectValidationError(unknownField, 'body', 'extra');
    expectDeprecated(unknownField);
    const badQuery = await api.request('GET', '/domains?limit=0', { token: key });
    expectValidationError(badQuery, 'query', 'limit');
    expectDeprecated(badQuery);
  });

  it('honours Idempotency-Key like /v1', async () => {
    const body = { hostname: 'legacy-idem.example.com', reference: 'ws' };
    const headers = { 'Idempotency-Key': 'legacy-key-1' };
    const first = await api.request('POST', '/domains', { token: key, body, headers });
    expect(first.status).toBe(201);
    const replay = await api.request('POST', '/domains', { token: key, body, headers });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expectDeprecated(replay);
    expectError(await api.request('POST', '/domains', { token: key, body: { ...body, reference: 'other' }, headers }), 422, 'idempotency_key_reused');
  });

  it('puts RateLimit headers on legacy answers too', async () => {
    const res = await api.request('GET', '/domains', { token: key });
    expect(res.headers.get('ratelimit-limit')).toBe('100000');
    expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  });
});

describe('ENABLE_LEGACY_API=false', () => {
  let api: TestApi;
  let key: string;

  beforeAll(async () => {
    api = await startTestApi({ ENABLE_LEGACY_API: 'false' });
    key = (await api.createApplication(undefined, FAST)).key;
  });
  afterAll(() => api?.close());

  it('answers 404 on every /domains path and keeps /v1/domains', async () => {
    const created = await api.request('POST', '/v1/domains', { token: key, body: { hostname: 'off.example.com', reference: 'ws' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    for (const [method, path, body] of [
      ['GET', '/domains', undefined],
      ['POST', '/domains', { hostname: 'legacy-off.example.com', reference: 'ws' }],
      ['GET', `/domains/${id}`, undefined],
      ['DELETE', `/domains/${id}`, undefined],
      ['POST', `/domains/${id}/checks`, undefined],
    ] as const) {
      const res = await api.request(method, path, { token: key, body, unchecked: true });
      expect(res.status).toBe(404);
      expect(res.headers.get('deprecation')).toBeNull();
    }
    const still = await api.request('GET', `/v1/domains/${id}`, { token: key });
    expect(still.status).toBe(200);
    expect(still.body.deleted_at).toBeNull();
    expect(await api.store.run((r) => r.domains.findLiveByHostname('legacy-off.example.com'))).toBeNull();
  });
});
