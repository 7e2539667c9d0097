// A deleted domain through the real API (DECISIONS §2, §9): listed with
// include_deleted=true until DELETED_DOMAIN_RETENTION has passed since its
// deletion, gone after. Retention is measured on the database's clock, so the
// API's clock is set back to delete domains as long ago as a case needs.
import { expectError, startTestApi, type TestApi } from '../../support/api-harness';
import { ManualClock, MINUTE, runnerOn, SETTINGS } from './housekeeping-fixtures';

describe('deleted domains and DELETED_DOMAIN_RETENTION', () => {
  const clock = new ManualClock(Date.now());
  let api: TestApi;
  let key: string;

  beforeAll(async () => {
    api = await startTestApi({}, { now: clock.now });
    key = (await api.createApplication()).key;
  });
  afterAll(() => api?.close());

  const createDomain = async (hostname: string) => {
    const res = await api.request('POST', '/v1/domains', { token: key, body: { hostname, reference: 'ws' } });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const deleteDomain = async (id: string) => expect((await api.request('DELETE', `/v1/domains/${id}`, { token: key })).status).toBe(202);
  const getDomain = (id: string, includeDeleted: boolean) => api.request('GET', `/v1/domains/${id}${includeDeleted ? '?include_deleted=true' : ''}`, { token: key });

  it('shows a deleted domain with include_deleted=true until its retention ends, and not after', async () => {
    const now = Date.now();
    clock.set(new Date(now - SETTINGS.deletedDomainRetention - 2 * MINUTE));
    const kept = await createDomain('stays-live.example.com');
    const gone = await createDomain('deleted-first.example.com');
    // Deleted a minute longer ago than the retention.
    clock.advance(MINUTE);
    await deleteDomain(gone.id);
    const deletedAt = clock.now();
    // Deleted an hour less long ago than the retention.
    clock.set(new Date(now - SETTINGS.deletedDomainRetention + 60 * MINUTE));
    const later = await createDomain('deleted-later.example.com');
    await deleteDomain(later.id);
    clock.set(new Date(now));

    // Until a run deletes it: there for include_deleted=true, 404 without it.
    const shown = await getDomain(gone.id, true);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: gone.id, status: 'deleting', deleted_at: deletedAt.toISOString() });
    expectError(await getDomain(gone.id, false), 404, 'domain_not_found');

    // The run deletes the domain past retention, with its checks.
    const { runner } = runnerOn(api.store, clock.now);
    expect(await runner.runOnce()).toMatchObject({ outcome: 'success', deleted: expect.objectContaining({ domains: 1, domain_checks: 4 }) });
    expectError(await getDomain(gone.id, true), 404, 'domain_not_found');
    expectError(await getDomain(gone.id, false), 404, 'domain_not_found');

    // The domain whose retention ends in an hour, and the live one, are untouched.
    expect((await getDomain(later.id, true)).body).toMatchObject({ id: later.id, status: 'deleting' });
    const live = await getDomain(kept.id, false);
    expect(live.status).toBe(200);
    expect(live.body.checks).toHaveLength(4);
    const listed = await api.request('GET', '/v1/domains?include_deleted=true&limit=100', { token: key });
    expect(listed.body.items.map((d: { id: string }) => d.id)).toEqual([kept.id, later.id]);
  });
});
