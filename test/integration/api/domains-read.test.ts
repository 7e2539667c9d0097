// GET /v1/domains and GET /v1/domains/{id}: order, filters, paging, query
// validation, and what another application or a deleted domain looks like.
import { randomUUID } from 'node:crypto';
import { expectError, expectValidationError, startTestApi, type TestApi } from '../../support/api-harness';
import { TestClock } from '../../support/test-clock';

interface Domain {
  id: string;
  hostname: string;
  reference: string;
  status: string;
  created_at: string;
  deleted_at: string | null;
}

const UNLIMITED = { api_requests_per_minute: 100_000 };

let api: TestApi;
// The API's clock: moved on between two creates, so creation order is the listing order.
const clock = new TestClock();
let key: string;
let otherKey: string;
let otherDomain: Domain;
// Created in this order: a1 (ref-a), b1 (ref-b), a2 (ref-a, then deleted), a3 (ref-a).
const d: Record<'a1' | 'b1' | 'a2' | 'a3', Domain> = {} as Record<'a1' | 'b1' | 'a2' | 'a3', Domain>;

beforeAll(async () => {
  api = await startTestApi({}, { now: clock.now });
  key = (await api.createApplication(undefined, UNLIMITED)).key;
  otherKey = (await api.createApplication(undefined, UNLIMITED)).key;
  for (const [name, reference] of [['a1', 'ref-a'], ['b1', 'ref-b'], ['a2', 'ref-a'], ['a3', 'ref-a']] as const) {
    const res = await api.request('POST', '/v1/domains', { token: key, body: { hostname: `${name}.list.example.com`, reference } });
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
    d[name] = res.body;
    clock.advance(5);
  }
  const deleted = await api.request('DELETE', `/v1/domains/${d.a2.id}`, { token: key });
  if (deleted.status !== 202) throw new Error(`delete: ${deleted.status} ${deleted.text}`);
  d.a2 = deleted.body;
  const other = await api.request('POST', '/v1/domains', { token: otherKey, body: { hostname: 'other.list.example.com', reference: 'ref-a' } });
  if (other.status !== 201) throw new Error(`create other: ${other.status} ${other.text}`);
  otherDomain = other.body;
});
afterAll(() => api?.close());

async function list(query: string, token = key): Promise<{ ids: string[]; limit: number; offset: number }> {
  const res = await api.request('GET', `/v1/domains${query}`, { token });
  if (res.status !== 200) throw new Error(`GET /v1/domains${query}: ${res.status} ${res.text}`);
  expect(Object.keys(res.body).sort()).toEqual(['items', 'limit', 'offset']);
  return { ids: (res.body.items as Domain[]).map((x) => x.id), limit: res.body.limit, offset: res.body.offset };
}

describe('GET /v1/domains', () => {
  it("lists the caller's live domains oldest first with the default page", async () => {
    expect(await list('')).toEqual({ ids: [d.a1.id, d.b1.id, d.a3.id], limit: 50, offset: 0 });
    expect(await list('', otherKey)).toEqual({ ids: [otherDomain.id], limit: 50, offset: 0 });
  });

  it('returns full domain resources', async () => {
    const res = await api.request('GET', '/v1/domains?reference=ref-b', { token: key });
    expect(res.body.items).toEqual([d.b1]);
  });

  it('includes deleted domains only with include_deleted=true', async () => {
    expect((await list('?include_deleted=true')).ids).toEqual([d.a1.id, d.b1.id, d.a2.id, d.a3.id]);
    expect((await list('?include_deleted=false')).ids).toEqual([d.a1.id, d.b1.id, d.a3.id]);
  });

  it('combines the reference, status and include_deleted filters', async () => {
    expect((await list('?reference=ref-a')).ids).toEqual([d.a1.id, d.a3.id]);
    expect((await list('?reference=ref-a&include_deleted=true')).ids).toEqual([d.a1.id, d.a2.id, d.a3.id]);
    expect((await list('?reference=ref-a&status=deleting&include_deleted=true')).ids).toEqual([d.a2.id]);
    expect((await list('?reference=ref-a&status=deleting')).ids).toEqual([]);
    expect((await list('?status=pending_dns&include_deleted=true')).ids).toEqual([d.a1.id, d.b1.id, d.a3.id]);
    expect((await list('?status=pending_dns&reference=ref-b')).ids).toEqual([d.b1.id]);
    expect((await list('?status=ready')).ids).toEqual([]);
    expect((await list('?reference=nope')).ids).toEqual([]);
    expect((await list('?reference=ref-a&include_deleted=true', otherKey)).ids).toEqual([otherDomain.id]);
  });

  it('pages with limit and offset, 1 to 200', async () => {
    expect(await list('?limit=2')).toEqual({ ids: [d.a1.id, d.b1.id], limit: 2, offset: 0 });
    expect(await list('?limit=2&offset=2')).toEqual({ ids: [d.a3.id], limit: 2, offset: 2 });
    expect(await list('?limit=1&offset=1&include_deleted=true')).toEqual({ ids: [d.b1.id], limit: 1, offset: 1 });
    expect(await list('?offset=3')).toEqual({ ids: [], limit: 50, offset: 3 });
    expect(await list('?limit=200&offset=0')).toEqual({ ids: [d.a1.id, d.b1.id, d.a3.id], limit: 200, offset: 0 });
    expect(await list('?limit=1')).toEqual({ ids: [d.a1.id], limit: 1, offset: 0 });
  });

  it('ignores unknown query parameters', async () => {
    expect(await list('?colour=blue&api=1&reference=ref-b')).toEqual({ ids: [d.b1.id], limit: 50, offset: 0 });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=ten', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['include_deleted=yes', 'include_deleted'],
    ['include_deleted=1', 'include_deleted'],
    ['include_deleted=TRUE', 'include_deleted'],
    ['status=deleted', 'status'],
    ['status=PENDING_DNS', 'status'],
    [`reference=${'r'.repeat(256)}`, 'reference'],
  ])('refuses ?%s with validation_error on the query', async (query, field) => {
    expectValidationError(await api.request('GET', `/v1/domains?${query}`, { token: key }), 'query', field);
  });
});

describe('GET /v1/domains/{id}', () => {
  it('returns the domain', async () => {
    const res = await api.request('GET', `/v1/domains/${d.a1.id}`, { token: key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(d.a1);
  });

  it.each([
    ['an unknown uuid', () => randomUUID()],
    ['a non-uuid id', () => 'not-a-uuid'],
    ['an almost-uuid id', () => `${randomUUID()}0`],
    ["another application's domain", () => otherDomain.id],
  ])('answers 404 domain_not_found for %s', async (_name, id) => {
    expectError(await api.request('GET', `/v1/domains/${id()}`, { token: key }), 404, 'domain_not_found');
    expectError(await api.request('GET', `/v1/domains/${id()}?include_deleted=true`, { token: key }), 404, 'domain_not_found');
  });

  it('hides a deleted domain unless include_deleted=true', async () => {
    expectError(await api.request('GET', `/v1/domains/${d.a2.id}`, { token: key }), 404, 'domain_not_found');
    expectError(await api.request('GET', `/v1/domains/${d.a2.id}?include_deleted=false`, { token: key }), 404, 'domain_not_found');
    const shown = await api.request('GET', `/v1/domains/${d.a2.id}?include_deleted=true`, { token: key });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(d.a2);
    expect(shown.body.status).toBe('deleting');
  });

  it('refuses include_deleted other than true or false', async () => {
    expectValidationError(await api.request('GET', `/v1/domains/${d.a1.id}?include_deleted=yes`, { token: key }), 'query', 'include_deleted');
  });
});
