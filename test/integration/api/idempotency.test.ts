// Idempotency-Key on POST /v1/domains: replays, reuse with another body, stored
// refusals, header validation, per-application scope and concurrent twins.
import { randomBytes } from 'node:crypto';
import type { IdempotencyRow } from '@cds/data';
import { expectError, expectValidationError, startTestApi, type Answer, type TestApi } from '../../support/api-harness';

const UNLIMITED = { api_requests_per_minute: 100_000, live_domains: 1000 };

let api: TestApi;
let key: string;

beforeAll(async () => {
  api = await startTestApi();
  key = (await api.createApplication(undefined, UNLIMITED)).key;
});
afterAll(() => api?.close());

const newKey = () => `idem-${randomBytes(8).toString('hex')}`;
const create = (body: unknown, idempotencyKey: string, token = key) =>
  api.request('POST', '/v1/domains', { token, body, headers: { 'Idempotency-Key': idempotencyKey } });

async function domainsNamed(hostname: string, token = key): Promise<Array<{ id: string }>> {
  const page = await api.request('GET', '/v1/domains?limit=200&include_deleted=true', { token });
  expect(page.status).toBe(200);
  return (page.body.items as Array<{ id: string; hostname: string }>).filter((d) => d.hostname === hostname);
}

function expectReplayOf(replay: Answer, first: Answer, status: number): void {
  expect(replay.status).toBe(status);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(first.body);
}

describe('Idempotency-Key', () => {
  it('replays a completed create as 200 with Idempotent-Replayed: true and the same body', async () => {
    const k = newKey();
    const body = { hostname: 'replay.example.com', reference: 'ws-1', metadata: { a: 1, b: 'two' } };
    const first = await create(body, k);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expectReplayOf(await create(body, k), first, 200);
    // The canonical JSON is compared: key order does not matter.
    expectReplayOf(await create({ metadata: { b: 'two', a: 1 }, reference: 'ws-1', hostname: 'replay.example.com' }, k), first, 200);
    expect(await domainsNamed('replay.example.com')).toHaveLength(1);
  });

  it('refuses the same key with a different body: 422 idempotency_key_reused', async () => {
    const k = newKey();
    expect((await create({ hostname: 'reused.example.com', reference: 'ws' }, k)).status).toBe(201);
    expectError(await create({ hostname: 'reused-other.example.com', reference: 'ws' }, k), 422, 'idempotency_key_reused');
    expectError(await create({ hostname: 'reused.example.com', reference: 'ws-changed' }, k), 422, 'idempotency_key_reused');
    expect(await domainsNamed('reused-other.example.com')).toEqual([]);
  });

  it('stores a 4xx of the create and replays it with its own status', async () => {
    const k = newKey();
    const bad = { hostname: 'stored-ref.example.com', reference: '' };
    const first = await create(bad, k);
    expectError(first, 422, 'invalid_reference');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await create(bad, k);
    expectError(replay, 422, 'invalid_reference');
    expectReplayOf(replay, first, 422);

    const kv = newKey();
    const invalid = { hostname: 'stored-validation.example.com', reference: 'ws', extra: true };
    const firstInvalid = await create(invalid, kv);
    expectValidationError(firstInvalid, 'body', 'extra');
    expectReplayOf(await create(invalid, kv), firstInvalid, 422);
    expectError(await create({ hostname: 'stored-validation.example.com', reference: 'ws' }, kv), 422, 'idempotency_key_reused');
  });

  it('replays a stored conflict even after the conflict is gone', async () => {
    const holder = await api.request('POST', '/v1/domains', { token: key, body: { hostname: 'stored-claim.example.com', reference: 'ws' } });
    expect(holder.status).toBe(201);
    const k = newKey();
    const body = { hostname: 'stored-claim.example.com', reference: 'ws' };
    const first = await create(body, k);
    expectError(first, 409, 'hostname_already_claimed');
    expect((await api.request('DELETE', `/v1/domains/${holder.body.id}`, { token: key })).status).toBe(202);
    const replay = await create(body, k);
    expectError(replay, 409, 'hostname_already_claimed');
    expectReplayOf(replay, first, 409);
    expect((await domainsNamed('stored-claim.example.com')).map((d) => d.id)).toEqual([holder.body.id]);
  });

  it('does not store a 403: the same key works once the application is active again', async () => {
    const { key: suspendedKey, slug: suspendedSlug } = await api.createApplication(undefined, UNLIMITED);
    const k = newKey();
    const body = { hostname: 'after-suspension.example.com', reference: 'ws' };
    expect((await api.operator('PATCH', `/operator/v1/applications/${suspendedSlug}`, { status: 'suspended' })).status).toBe(200);
    expectError(await create(body, k, suspendedKey), 403, 'application_suspended');
    expect((await api.operator('PATCH', `/operator/v1/applications/${suspendedSlug}`, { status: 'active' })).status).toBe(200);
    const created = await create(body, k, suspendedKey);
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
  });

  it.each([
    ['empty', ''],
    ['256 characters long', 'k'.repeat(256)],
  ])('refuses a key that is %s with 422 validation_error at location header', async (_name, idempotencyKey) => {
    const hostname = `bad-key-${idempotencyKey.length}.example.com`;
    const errors = expectValidationError(await create({ hostname, reference: 'ws' }, idempotencyKey), 'header', 'idempotency-key');
    expect(errors.every((e) => e.location === 'header')).toBe(true);
    expect(await domainsNamed(hostname)).toEqual([]);
  });

  it('accepts a 255-character key', async () => {
    const k = 'k'.repeat(255);
    const body = { hostname: 'long-key.example.com', reference: 'ws' };
    const first = await create(body, k);
    expect(first.status).toBe(201);
    expectReplayOf(await create(body, k), first, 200);
  });

  it('scopes keys to the application: one key creates a domain in each of two applications', async () => {
    const { key: secondKey } = await api.createApplication(undefined, UNLIMITED);
    const k = newKey();
    const a = await create({ hostname: 'scope-a.example.com', reference: 'ws' }, k);
    const b = await create({ hostname: 'scope-b.example.com', reference: 'ws' }, k, secondKey);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(await domainsNamed('scope-a.example.com')).toHaveLength(1);
    expect(await domainsNamed('scope-b.example.com', secondKey)).toHaveLength(1);
    // …and each application's key replays its own answer.
    expectReplayOf(await create({ hostname: 'scope-b.example.com', reference: 'ws' }, k, secondKey), b, 200);
  });

  it('creates exactly one domain from 20 concurrent requests with one key', async () => {
    const k = newKey();
    const body = { hostname: 'parallel.example.com', reference: 'ws' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(body, k)));
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(1);
    const [winner] = created as [Answer];
    for (const a of answers.filter((x) => x !== winner)) {
      if (a.status === 200) expectReplayOf(a, winner, 200);
      else expectError(a, 409, 'idempotency_request_in_progress');
    }
    expect((await domainsNamed('parallel.example.com')).map((d) => d.id)).toEqual([winner.body.id]);
    expectReplayOf(await create(body, k), winner, 200);
  });
  it('lets a key whose first request died mid-way (in progress for over a minute) be used again', async () => {
    const k = newKey();
    const body = { hostname: 'abandoned.example.com', reference: 'ws' };
    const { slug, key: appKey } = await api.createApplication(undefined, UNLIMITED);
    const app = await api.store.run((r) => r.applications.findLiveBySlug(slug));
    expect(app).not.toBeNull();
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    const inserted = await api.store.run((r) =>
      r.idempotency.tryInsert({
        applicationId: (app as { id: string }).id, key: k, requestHash: 'left-by-a-crashed-process', state: 'in_progress',
        responseStatus: null, responseBody: null, createdAt: twoMinutesAgo, expiresAt: new Date(twoMinutesAgo.getTime() + 86_400_000),
      }),
    );
    expect(inserted).toBe(true);
    const res = await create(body, k, appKey);
    expect(res.status).toBe(201);
    expectReplayOf(await create(body, k, appKey), res, 200);
  });

  it('lets exactly one of many concurrent retries take over an abandoned key, and keeps the answer of the one that did', async () => {
    const k = newKey();
    const body = { hostname: 'taken-over.example.com', reference: 'ws' };
    const { slug, key: appKey } = await api.createApplication(undefined, UNLIMITED);
    const applicationId = ((await api.store.run((r) => r.applications.findLiveBySlug(slug))) as { id: string }).id;
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    expect(await api.store.run((r) =>
      r.idempotency.tryInsert({
        applicationId, key: k, requestHash: 'left-by-a-crashed-process', state: 'in_progress',
        responseStatus: null, responseBody: null, createdAt: twoMinutesAgo, expiresAt: new Date(twoMinutesAgo.getTime() + 86_400_000),
      }),
    )).toBe(true);

    const answers = await Promise.all(Array.from({ length: 20 }, () => create(body, k, appKey)));

    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(1);
    const [winner] = created as [Answer];
    for (const a of answers.filter((x) => x !== winner)) {
      if (a.status === 200) expectReplayOf(a, winner, 200);
      else expectError(a, 409, 'idempotency_request_in_progress');
    }
    expect((await domainsNamed(body.hostname, appKey)).map((d) => d.id)).toEqual([winner.body.id]);
    const stored = await api.store.run((r) => r.idempotency.find(applicationId, k));
    expect(stored).toMatchObject({ state: 'completed', responseStatus: 201 });
    expect(JSON.parse((stored as IdempotencyRow).responseBody as string)).toEqual(winner.body);
    expectReplayOf(await create(body, k, appKey), winner, 200);
  });
});

describe('Idempotency-Key whose request died after its domain was committed', () => {
  let shiftMs = 0;
  let clocked: TestApi;
  beforeAll(async () => {
    clocked = await startTestApi({}, { now: () => new Date(Date.now() + shiftMs) });
  });
  afterAll(() => clocked?.close());

  it('is taken over after a minute by replaying the committed domain (200), not by creating it again', async () => {
    const { slug, key: appKey } = await clocked.createApplication(undefined, UNLIMITED);
    const app = await clocked.store.run((r) => r.applications.findLiveBySlug(slug));
    const applicationId = (app as { id: string }).id;
    const k = newKey();
    const body = { hostname: 'died-after-commit.example.com', reference: 'ws' };
    const send = () => clocked.request('POST', '/v1/domains', { token: appKey, body, headers: { 'Idempotency-Key': k } });
    const first = await send();
    expect(first.status).toBe(201);

    // What a process killed between the domain's commit and the key's completion leaves: the key still in progress.
    const row = await clocked.store.run((r) => r.idempotency.find(applicationId, k));
    expect(row?.state).toBe('completed');
    await clocked.store.run(async (r) => {
      await r.idempotency.delete(applicationId, k, (row as IdempotencyRow).createdAt);
      await r.idempotency.tryInsert({ ...(row as IdempotencyRow), state: 'in_progress', responseStatus: null, responseBody: null });
    });
    expectError(await send(), 409, 'idempotency_request_in_progress');

    shiftMs = 61_000;
    const takenOver = await send();
    expectReplayOf(takenOver, first, 200);
    expect((await clocked.store.run((r) => r.idempotency.find(applicationId, k)))?.state).toBe('completed');
    expectReplayOf(await send(), first, 200);
    const page = await clocked.request('GET', '/v1/domains?include_deleted=true', { token: appKey });
    expect((page.body.items as Array<{ hostname: string }>).filter((d) => d.hostname === body.hostname)).toHaveLength(1);
  });
});
