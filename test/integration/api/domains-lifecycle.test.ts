// DELETE /v1/domains/{id} and POST /v1/domains/{id}/checks: answers, the
// outbox rows they write, and the recheck limits.
import { randomUUID } from 'node:crypto';
import { ROUTING_KEYS } from '@cds/core';
import { expectError, randomSlug, startTestApi, type TestApi } from '../../support/api-harness';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNLIMITED = { api_requests_per_minute: 100_000, live_domains: 1000 };

let api: TestApi;
let key: string;
let otherKey: string;

beforeAll(async () => {
  api = await startTestApi();
  key = (await api.createApplication(undefined, UNLIMITED)).key;
  otherKey = (await api.createApplication(undefined, UNLIMITED)).key;
});
afterAll(() => api?.close());

async function createDomain(hostname: string, token = key) {
  const res = await api.request('POST', '/v1/domains', { token, body: { hostname, reference: 'ws' } });
  if (res.status !== 201) throw new Error(`create ${hostname}: ${res.status} ${res.text}`);
  return res.body;
}

async function outboxFor(routingKey: string, domainId: string) {
  const rows = await api.store.run((r) => r.outbox.all(routingKey));
  return rows
    .map((row) => row.payload as { domain_id?: string; type?: string; reason?: string; data?: { domain: { id: string } } })
    .filter((p) => (p.domain_id ?? p.data?.domain.id) === domainId);
}

describe('DELETE /v1/domains/{id}', () => {
  it('answers 202 deleting with deleted_at and no DNS records; a repeat gives the same representation and no second event', async () => {
    const created = await createDomain('delete-me.example.com');
    const res = await api.request('DELETE', `/v1/domains/${created.id}`, { token: key });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      ...created,
      status: 'deleting',
      dns_records: [],
      deleted_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(Date.parse(res.body.deleted_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at));
    expect(res.body.checks).toHaveLength(4);

    const again = await api.request('DELETE', `/v1/domains/${created.id}`, { token: key });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(res.body);

    const events = await outboxFor(ROUTING_KEYS.eventEmitted, created.id);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'domain.deleted',
        event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        created_at: expect.stringMatching(/\+00:00$/),
        data: { domain: res.body },
      }),
    ]);
    const requested = await outboxFor(ROUTING_KEYS.domainCheckRequested, created.id);
    expect(requested).toEqual([expect.objectContaining({ reason: 'created' })]);
  });

  it('takes the domain out of the default listing and GET', async () => {
    const created = await createDomain('delete-hidden.example.com');
    expect((await api.request('DELETE', `/v1/domains/${created.id}`, { token: key })).status).toBe(202);
    expectError(await api.request('GET', `/v1/domains/${created.id}`, { token: key }), 404, 'domain_not_found');
    const page = await api.request('GET', '/v1/domains?limit=200', { token: key });
    expect(page.body.items.map((x: { id: string }) => x.id)).not.toContain(created.id);
  });

  it.each([
    ['an unknown uuid', () => Promise.resolve(randomUUID())],
    ['a non-uuid id', () => Promise.resolve('12345')],
    ["another application's domain", async () => (await createDomain(`foreign-${randomSlug('d')}.example.com`, otherKey)).id],
  ])('answers 404 domain_not_found for %s and changes nothing', async (_name, idOf) => {
    const id = await idOf();
    expectError(await api.request('DELETE', `/v1/domains/${id}`, { token: key }), 404, 'domain_not_found');
    if (id.length === 36) expect(await outboxFor(ROUTING_KEYS.eventEmitted, id)).toEqual([]);
  });

  it("leaves another application's domain live when it refuses to delete it", async () => {
    const foreign = await createDomain('foreign-kept.example.com', otherKey);
    expectError(await api.request('DELETE', `/v1/domains/${foreign.id}`, { token: key }), 404, 'domain_not_found');
    const still = await api.request('GET', `/v1/domains/${foreign.id}`, { token: otherKey });
    expect(still.status).toBe(200);
    expect(still.body.deleted_at).toBeNull();
  });
});

describe('POST /v1/domains/{id}/checks', () => {
  it('answers 202 with the domain as it was and asks for a check; a second within 60 s is rate_limited', async () => {
    const created = await createDomain('recheck.example.com');
    const before = (await api.request('GET', `/v1/domains/${created.id}`, { token: key })).body;

    const res = await api.request('POST', `/v1/domains/${created.id}/checks`, { token: key });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(before);
    expect((await api.request('GET', `/v1/domains/${created.id}`, { token: key })).body.status).toBe('pending_dns');
    const requested = await outboxFor(ROUTING_KEYS.domainCheckRequested, created.id);
    expect(requested.map((p) => p.reason)).toEqual(['created', 'recheck']);

    const second = await api.request('POST', `/v1/domains/${created.id}/checks`, { token: key });
    const details = expectError(second, 429, 'rate_limited');
    const retryAfter = second.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(details.retry_after_seconds).toBe(Number(retryAfter));
    expect(await outboxFor(ROUTING_KEYS.domainCheckRequested, created.id)).toHaveLength(2);
  });

  it('refuses a deleted domain with 409 invalid_status_transition', async () => {
    const created = await createDomain('recheck-deleted.example.com');
    expect((await api.request('DELETE', `/v1/domains/${created.id}`, { token: key })).status).toBe(202);
    expectError(await api.request('POST', `/v1/domains/${created.id}/checks`, { token: key }), 409, 'invalid_status_transition');
    expect((await outboxFor(ROUTING_KEYS.domainCheckRequested, created.id)).map((p) => p.reason)).toEqual(['created']);
  });

  it("answers 404 domain_not_found for unknown, non-uuid and another application's ids", async () => {
    const foreign = await createDomain('recheck-foreign.example.com', otherKey);
    for (const id of [randomUUID(), 'nope', foreign.id]) {
      expectError(await api.request('POST', `/v1/domains/${id}/checks`, { token: key }), 404, 'domain_not_found');
    }
    expect((await outboxFor(ROUTING_KEYS.domainCheckRequested, foreign.id)).map((p) => p.reason)).toEqual(['created']);
    // The refused foreign recheck did not use the owner's per-domain allowance.
    expect((await api.request('POST', `/v1/domains/${foreign.id}/checks`, { token: otherKey })).status).toBe(202);
  });

  it('allows 60 rechecks per application per hour', async () => {
    // The hourly window is anchored at the application's first recheck: the 61 rechecks fall inside it without waiting.
    const { key: busy } = await api.createApplication(undefined, { api_requests_per_minute: 100_000, live_domains: 100 });
    const ids: string[] = [];
    for (let i = 0; i < 61; i++) ids.push((await createDomain(`hourly-${i}.example.com`, busy)).id);
    for (const id of ids.slice(0, 60)) {
      const res = await api.request('POST', `/v1/domains/${id}/checks`, { token: busy });
      if (res.status !== 202) throw new Error(`recheck ${id}: ${res.status} ${res.text}`);
    }
    const over = await api.request('POST', `/v1/domains/${ids[60]}/checks`, { token: busy });
    const details = expectError(over, 429, 'rate_limited');
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    expect(details.retry_after_seconds).toBe(Number(over.headers.get('retry-after')));
    expect((await outboxFor(ROUTING_KEYS.domainCheckRequested, ids[60] as string)).map((p) => p.reason)).toEqual(['created']);
    // Another application's allowance is its own.
    const mine = await createDomain('hourly-other-app.example.com');
    expect((await api.request('POST', `/v1/domains/${mine.id}/checks`, { token: key })).status).toBe(202);
  });
});
