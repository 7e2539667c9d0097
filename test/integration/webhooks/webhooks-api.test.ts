// /v1/webhooks: create, list, revoke, rotate, deliveries and replays as the
// API answers them (delivery itself is in webhooks-delivery.test.ts).
import { randomUUID } from 'node:crypto';
import { decryptSecret } from '@cds/core';
import type { WebhookDeliveryRow } from '@cds/data';
import { expectError, expectValidationError, startTestApi, type TestApi } from '../../support/api-harness';
import { TestClock } from '../../support/test-clock';

const UNLIMITED = { api_requests_per_minute: 100_000 };
const URL_OK = 'https://127.0.0.1:9/hook';
const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;

let api: TestApi;
// The API's clock: moved on between creates where the listing order is the creation order.
const clock = new TestClock();
let key: string;
let appId: string;
let otherKey: string;

beforeAll(async () => {
  // Loopback is allowed here so that URLs need no DNS; webhooks-ssrf.test.ts covers refusals.
  api = await startTestApi({ WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' }, { now: clock.now });
  const app = await api.createApplication(undefined, UNLIMITED);
  key = app.key;
  appId = (await api.store.run((r) => r.applications.findLiveBySlug(app.slug)))?.id as string;
  otherKey = (await api.createApplication(undefined, UNLIMITED)).key;
});
afterAll(() => api?.close());

async function create(body: unknown, token = key) {
  return api.request('POST', '/v1/webhooks', { token, body });
}

async function created(events = ['domain.ready'], token = key) {
  const res = await create({ url: URL_OK, events }, token);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body as { id: string; secret: string; [k: string]: unknown };
}

function delivery(subscriptionId: string, overrides: Partial<WebhookDeliveryRow> = {}): WebhookDeliveryRow {
  return {
    id: randomUUID(), applicationId: appId, subscriptionId, eventId: randomUUID(), eventType: 'domain.ready', payload: '{"id":"e"}',
    state: 'pending', attempts: 0, nextAttemptAt: new Date(Date.now() + 3_600_000), lastAttemptAt: null, lastStatusCode: null,
    lastError: null, createdAt: new Date(), deliveredAt: null, replayOf: null, leaseId: null, ...overrides,
  };
}

describe('POST /v1/webhooks', () => {
  it('creates an active subscription and shows its secret once', async () => {
    const before = Date.now();
    const res = await create({ url: URL_OK, events: ['domain.ready', 'domain.deleted'] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'events', 'id', 'revoked_at', 'secret', 'status', 'updated_at', 'url']);
    expect(res.body).toMatchObject({ url: URL_OK, events: ['domain.ready', 'domain.deleted'], status: 'active', revoked_at: null });
    expect(res.body.secret).toMatch(SECRET);
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 5);
    expect(res.body.updated_at).toBe(res.body.created_at);

    const listed = (await api.request('GET', '/v1/webhooks', { token: key })).body as Array<Record<string, unknown>>;
    const mine = listed.find((s) => s.id === res.body.id);
    expect(mine).toEqual({ ...res.body, secret: undefined });
    expect(mine && 'secret' in mine).toBe(false);
    // Stored sealed, not in clear.
    const [sealed] = await api.store.run((r) => r.webhookSubscriptions.signingSecrets([res.body.id], new Date()));
    expect(sealed?.secretSealed).not.toContain(res.body.secret);
    expect(decryptSecret(sealed?.secretSealed as string, api.config.dataEncryptionKey, { purpose: 'webhook-secret', id: sealed?.id as string })).toBe(res.body.secret);
  });

  it.each([
    [{}, 'url'],
    [{ events: ['domain.ready'] }, 'url'],
    [{ url: 42, events: ['domain.ready'] }, 'url'],
    [{ url: null, events: ['domain.ready'] }, 'url'],
    [{ url: URL_OK }, 'events'],
    [{ url: URL_OK, events: [] }, 'events'],
    [{ url: URL_OK, events: 'domain.ready' }, 'events'],
    [{ url: URL_OK, events: ['domain.ready', 'domain.ready'] }, 'events'],
    [{ url: URL_OK, events: ['domain.created'] }, 'events'],
    [{ url: URL_OK, events: [null] }, 'events'],
    [{ url: URL_OK, events: ['domain.ready'], secret: 'mine' }, 'secret'],
  ])('refuses %j with validation_error on %s', async (body, field) => {
    expectValidationError(await create(body), 'body', field);
  });

  it('refuses a URL that is a string but not an acceptable one with invalid_webhook_url', async () => {
    expect(expectError(await create({ url: '', events: ['domain.ready'] }), 422, 'invalid_webhook_url')).toEqual({ reason: 'invalid_url' });
    expect(expectError(await create({ url: 'http://127.0.0.1/x', events: ['domain.ready'] }), 422, 'invalid_webhook_url')).toEqual({ reason: 'scheme_not_https' });
    expect(expectError(await create({ url: `https://x.example/${'a'.repeat(2100)}`, events: ['domain.ready'] }), 422, 'invalid_webhook_url')).toEqual({ reason: 'invalid_url' });
  });

  it('allows ten active subscriptions per application; the 11th is webhook_limit_reached, revoked ones do not count', async () => {
    const app = await api.createApplication(undefined, UNLIMITED);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await created(['domain.ready'], app.key)).id);
    const details = expectError(await create({ url: URL_OK, events: ['domain.ready'] }, app.key), 409, 'webhook_limit_reached');
    expect(details).toEqual({ limit: 10, active: 10 });
    expect((await api.request('DELETE', `/v1/webhooks/${ids[3]}`, { token: app.key })).status).toBe(200);
    expect((await create({ url: URL_OK, events: ['domain.ready'] }, app.key)).status).toBe(201);
    expectError(await create({ url: URL_OK, events: ['domain.ready'] }, app.key), 409, 'webhook_limit_reached');
  });

  it('takes the limit from the application and holds it under concurrent creates', async () => {
    const app = await api.createApplication(undefined, { ...UNLIMITED, webhook_subscriptions: 3 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => create({ url: URL_OK, events: ['domain.recovered'] }, app.key)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 409, 'webhook_limit_reached');
  });
});

describe('GET /v1/webhooks', () => {
  it("lists the caller's subscriptions oldest first, revoked ones included", async () => {
    const app = await api.createApplication(undefined, UNLIMITED);
    const a = await created(['domain.ready'], app.key);
    clock.advance(5); // distinct created_at, so creation order is the listing order
    const b = await created(['domain.deleted', 'domain.recovered'], app.key);
    clock.advance(5);
    const c = await created(['domain.attention_required'], app.key);
    await api.request('DELETE', `/v1/webhooks/${b.id}`, { token: app.key });
    const res = await api.request('GET', '/v1/webhooks', { token: app.key });
    expect(res.status).toBe(200);
    expect((res.body as Array<{ id: string; status: string }>).map((s) => [s.id, s.status])).toEqual([[a.id, 'active'], [b.id, 'revoked'], [c.id, 'active']]);
    const other = await api.request('GET', '/v1/webhooks', { token: otherKey });
    expect((other.body as Array<{ id: string }>).some((s) => [a.id, b.id, c.id].includes(s.id))).toBe(false);
  });
});

describe('DELETE /v1/webhooks/{id}', () => {
  it('revokes, abandons pending deliveries, keeps the others, and answers the same record again', async () => {
    const sub = await created();
    const pending = delivery(sub.id);
    const delivered = delivery(sub.id, { state: 'delivered', attempts: 1, nextAttemptAt: null, deliveredAt: new Date(), lastStatusCode: 200 });
    await api.store.run((r) => r.webhookDeliveries.insertMany([pending, delivered]));

    const res = await api.request('DELETE', `/v1/webhooks/${sub.id}`, { token: key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sub.id, status: 'revoked', url: URL_OK, events: ['domain.ready'] });
    expect(Date.parse(res.body.revoked_at)).not.toBeNaN();
    expect(res.body.updated_at).toBe(res.body.revoked_at);
    expect('secret' in res.body).toBe(false);

    const again = await api.request('DELETE', `/v1/webhooks/${sub.id.toUpperCase()}`, { token: key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);

    const history = await api.request('GET', `/v1/webhooks/${sub.id}/deliveries`, { token: key });
    expect(history.status).toBe(200);
    const byId = new Map((history.body as Array<{ id: string }>).map((d) => [d.id, d]));
    expect(byId.get(pending.id)).toMatchObject({ state: 'abandoned', last_error: 'subscription revoked', next_attempt_at: null });
    expect(byId.get(delivered.id)).toMatchObject({ state: 'delivered', last_status_code: 200 });
  });

  it('answers webhook_not_found for unknown, malformed and other applications\' ids', async () => {
    const theirs = await created(['domain.ready'], otherKey);
    for (const id of [randomUUID(), 'not-a-uuid', theirs.id]) {
      expectError(await api.request('DELETE', `/v1/webhooks/${id}`, { token: key }), 404, 'webhook_not_found');
      expectError(await api.request('POST', `/v1/webhooks/${id}/rotate`, { token: key }), 404, 'webhook_not_found');
      expectError(await api.request('GET', `/v1/webhooks/${id}/deliveries`, { token: key }), 404, 'webhook_not_found');
      expectError(await api.request('POST', `/v1/webhooks/${id}/replay?since=2025-01-01T00:00:00Z`, { token: key }), 404, 'webhook_not_found');
      expectError(await api.request('POST', `/v1/webhooks/${id}/deliveries/${randomUUID()}/replay`, { token: key }), 404, 'webhook_not_found');
    }
    const listed = (await api.request('GET', '/v1/webhooks', { token: otherKey })).body as Array<{ id: string; status: string }>;
    expect(listed.find((s) => s.id === theirs.id)?.status).toBe('active');
  });
});

describe('POST /v1/webhooks/{id}/rotate', () => {
  it('issues a new secret and keeps every earlier one signing for 24 hours after the rotation that replaced it', async () => {
    const sub = await created();
    const first = await api.request('POST', `/v1/webhooks/${sub.id}/rotate`, { token: key });
    expect(first.status).toBe(200);
    expect(first.body.secret).toMatch(SECRET);
    expect(first.body.secret).not.toBe(sub.secret);
    expect(first.body).toMatchObject({ id: sub.id, status: 'active' });
    const second = await api.request('POST', `/v1/webhooks/${sub.id}/rotate`, { token: key });
    const secrets = async (at: Date) =>
      (await api.store.run((r) => r.webhookSubscriptions.signingSecrets([sub.id], at))).map((s) => decryptSecret(s.secretSealed, api.config.dataEncryptionKey, { purpose: 'webhook-secret', id: s.id }));
    expect(await secrets(new Date())).toEqual([second.body.secret, first.body.secret, sub.secret]);
    const dayLater = new Date(Date.now() + 24 * 3_600_000 + 60_000);
    expect(await secrets(dayLater)).toEqual([second.body.secret]);
  });

  it('refuses a revoked subscription with invalid_status_transition', async () => {
    const sub = await created();
    await api.request('DELETE', `/v1/webhooks/${sub.id}`, { token: key });
    expectError(await api.request('POST', `/v1/webhooks/${sub.id}/rotate`, { token: key }), 409, 'invalid_status_transition');
  });
});

describe('deliveries and replays', () => {
  let sub: { id: string };
  const rows: WebhookDeliveryRow[] = [];

  beforeAll(async () => {
    sub = await created();
    const base = Date.now() - 60_000;
    const states = ['delivered', 'abandoned', 'pending', 'delivered', 'pending'] as const;
    states.forEach((state, i) => rows.push(delivery(sub.id, { state, createdAt: new Date(base + i * 1000), attempts: state === 'pending' ? 0 : 1 })));
    await api.store.run((r) => r.webhookDeliveries.insertMany(rows));
  });

  it('lists deliveries newest first with every field, filtered by state and paged', async () => {
    const res = await api.request('GET', `/v1/webhooks/${sub.id}/deliveries`, { token: key });
    expect(res.status).toBe(200);
    expect((res.body as Array<{ id: string }>).map((d) => d.id)).toEqual([...rows].reverse().map((d) => d.id));
    expect(Object.keys(res.body[0]).sort()).toEqual([
      'attempts', 'created_at', 'delivered_at', 'event_id', 'event_type', 'id', 'last_attempt_at', 'last_error', 'last_status_code',
      'next_attempt_at', 'replay_of', 'state', 'subscription_id',
    ]);
    const pending = await api.request('GET', `/v1/webhooks/${sub.id}/deliveries?state=pending`, { token: key });
    expect((pending.body as Array<{ id: string }>).map((d) => d.id)).toEqual([rows[4]?.id, rows[2]?.id]);
    const page = await api.request('GET', `/v1/webhooks/${sub.id}/deliveries?limit=2&offset=1`, { token: key });
    expect((page.body as Array<{ id: string }>).map((d) => d.id)).toEqual([rows[3]?.id, rows[2]?.id]);
    expectValidationError(await api.request('GET', `/v1/webhooks/${sub.id}/deliveries?state=lost`, { token: key }), 'query', 'state');
    expectValidationError(await api.request('GET', `/v1/webhooks/${sub.id}/deliveries?limit=0`, { token: key }), 'query', 'limit');
    expectValidationError(await api.request('GET', `/v1/webhooks/${sub.id}/deliveries?limit=201`, { token: key }), 'query', 'limit');
    expectValidationError(await api.request('GET', `/v1/webhooks/${sub.id}/deliveries?offset=-1`, { token: key }), 'query', 'offset');
  });

  it('replays one delivery as a new pending one of the same event', async () => {
    const source = rows[0] as WebhookDeliveryRow;
    const res = await api.request('POST', `/v1/webhooks/${sub.id}/deliveries/${source.id}/replay`, { token: key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      subscription_id: sub.id, event_id: source.eventId, event_type: 'domain.ready', state: 'pending', attempts: 0,
      replay_of: source.id, last_attempt_at: null, last_status_code: null, last_error: null, delivered_at: null,
    });
    expect(res.body.id).not.toBe(source.id);
    const stored = await api.store.run((r) => r.webhookDeliveries.find(appId, sub.id, res.body.id));
    expect(stored?.payload).toBe(source.payload);
  });

  it('answers delivery_not_found for unknown, malformed and other subscriptions\' deliveries', async () => {
    const another = await created();
    for (const id of [randomUUID(), 'nope', (rows[0] as WebhookDeliveryRow).id]) {
      expectError(await api.request('POST', `/v1/webhooks/${another.id}/deliveries/${id}/replay`, { token: key }), 404, 'delivery_not_found');
    }
  });

  it('replays every delivery created at or after since, earlier replays included', async () => {
    const since = (rows[2] as WebhookDeliveryRow).createdAt.toISOString();
    const before = (await api.request('GET', `/v1/webhooks/${sub.id}/deliveries?limit=200`, { token: key })).body as Array<{ id: string; created_at: string }>;
    const expected = before.filter((d) => d.created_at >= since).map((d) => d.id).sort();
    const res = await api.request('POST', `/v1/webhooks/${sub.id}/replay?since=${encodeURIComponent(since)}`, { token: key });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['delivery_ids', 'replayed', 'since']);
    expect(res.body.since).toBe(since);
    expect(res.body.replayed).toBe(expected.length);
    expect(res.body.delivery_ids).toHaveLength(expected.length);
    const after = (await api.request('GET', `/v1/webhooks/${sub.id}/deliveries?limit=200`, { token: key })).body as Array<{ id: string; replay_of: string | null; state: string }>;
    const replays = after.filter((d) => (res.body.delivery_ids as string[]).includes(d.id));
    expect(replays.map((d) => d.replay_of).sort()).toEqual(expected);
    expect(replays.every((d) => d.state === 'pending')).toBe(true);
    // An offset in the query means the same instant.
    const offset = new Date(Date.parse(since)).toISOString().replace('Z', '+00:00');
    const again = await api.request('POST', `/v1/webhooks/${sub.id}/replay?since=${encodeURIComponent(offset)}`, { token: key });
    expect(again.body.replayed).toBe(expected.length * 2);
  });

  it('requires since as an ISO 8601 date-time', async () => {
    for (const query of ['', '?since=', '?since=yesterday', '?since=2025-01-01', '?since=2025-13-45T00:00:00Z', '?since=2025-01-01T00:00:00']) {
      expectValidationError(await api.request('POST', `/v1/webhooks/${sub.id}/replay${query}`, { token: key }), 'query', 'since');
    }
  });

  it('refuses to replay more than 1000 deliveries in one call, saying so', async () => {
    const big = await created();
    const start = Date.now() - 10_000;
    const many = Array.from({ length: 1001 }, (_, i) => delivery(big.id, { createdAt: new Date(start + i), state: 'delivered', nextAttemptAt: null }));
    await api.store.run((r) => r.webhookDeliveries.insertMany(many));
    const at = (i: number) => encodeURIComponent(new Date(start + i).toISOString());
    const details = expectError(await api.request('POST', `/v1/webhooks/${big.id}/replay?since=${at(0)}`, { token: key }), 422, 'validation_error');
    expect(details).toMatchObject({ limit: 1000, matched: 1001, errors: [{ location: 'query', field: 'since', type: 'replay.too_many' }] });
    const ok = await api.request('POST', `/v1/webhooks/${big.id}/replay?since=${at(1)}`, { token: key });
    expect(ok.status).toBe(202);
    expect(ok.body.replayed).toBe(1000);
  });

  it('refuses replays on a revoked subscription with invalid_status_transition', async () => {
    const gone = await created();
    const row = delivery(gone.id);
    await api.store.run((r) => r.webhookDeliveries.insertMany([row]));
    await api.request('DELETE', `/v1/webhooks/${gone.id}`, { token: key });
    expectError(await api.request('POST', `/v1/webhooks/${gone.id}/deliveries/${row.id}/replay`, { token: key }), 409, 'invalid_status_transition');
    expectError(await api.request('POST', `/v1/webhooks/${gone.id}/replay?since=2020-01-01T00:00:00Z`, { token: key }), 409, 'invalid_status_transition');
    // History stays readable.
    expect((await api.request('GET', `/v1/webhooks/${gone.id}/deliveries`, { token: key })).body).toHaveLength(1);
  });
});

describe('the OpenAPI document', () => {
  it('serves every webhook endpoint, none marked as not served', async () => {
    const doc = (await api.request('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const expected = [
      ['get', '/v1/webhooks'], ['post', '/v1/webhooks'], ['delete', '/v1/webhooks/{webhook_id}'], ['post', '/v1/webhooks/{webhook_id}/rotate'],
      ['get', '/v1/webhooks/{webhook_id}/deliveries'], ['post', '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay'],
      ['post', '/v1/webhooks/{webhook_id}/replay'], ['get', '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/attempts'],
    ] as const;
    for (const [method, path] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op).toBeDefined();
      expect(op?.['x-not-yet-served']).toBeUndefined();
    }
  });
});
