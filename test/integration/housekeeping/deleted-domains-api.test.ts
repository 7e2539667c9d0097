// A deleted domain through the real API (DECISIONS §2, §9): listed with
// include_deleted=true until DELETED_DOMAIN_RETENTION has passed since its
// deletion, gone after. The API and housekeeping share one clock, moved by hand.
import { expectError, startTestApi, type TestApi } from '../../support/api-harness';
import { DAY, ManualClock, MINUTE, runnerOn, SETTINGS } from './housekeeping-fixtures';

describe('deleted domains and DELETED_DOMAIN_RETENTION', () => {
  const clock = new ManualClock(Date.parse('2026-06-01T12:00:00.000Z'));
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
  const getDomain = (id: string, includeDeleted: boolean) => api.request('GET', `/v1/domains/${id}${includeDeleted ? '?include_deleted=true' : ''}`, { token: key });
  const housekeepingAt = async (at: Date) => {
    const { runner } = runnerOn(api.store, () => at);
    return runner.runOnce();
  };

  it('shows a deleted domain with include_deleted=true until its retention ends, and not after', async () => {
    const kept = await createDomain('stays-live.example.com');
    const gone = await createDomain('deleted-first.example.com');
    expect((await api.request('DELETE', `/v1/domains/${gone.id}`, { token: key })).status).toBe(202);
    const deletedAt = clock.now();
    clock.advance(10 * DAY);
    const later = await createDomain('deleted-later.example.com');
    expect((await api.request('DELETE', `/v1/domains/${later.id}`, { token: key })).status).toBe(202);

    // An hour before the retention ends: still there for include_deleted=true, 404 without it.
    const before = await housekeepingAt(new Date(deletedAt.getTime() + SETTINGS.deletedDomainRetention - 60 * MINUTE));
    expect(before).toMatchObject({ outcome: 'success', deleted: expect.objectContaining({ domains: 0 }) });
    const shown = await getDomain(gone.id, true);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: gone.id, status: 'deleting', deleted_at: deletedAt.toISOString() });
    expectError(await getDomain(gone.id, false), 404, 'domain_not_found');

    // A minute after the retention ended (the next run, an hour later): gone for good, with its checks.
    clock.set(new Date(deletedAt.getTime() + SETTINGS.deletedDomainRetention + MINUTE));
    const after = await housekeepingAt(clock.now());
    expect(after).toMatchObject({ outcome: 'success', deleted: expect.objectContaining({ domains: 1, domain_checks: 4 }) });
    expectError(await getDomain(gone.id, true), 404, 'domain_not_found');
    expectError(await getDomain(gone.id, false), 404, 'domain_not_found');

    // The domain deleted ten days later, and the live one, are untouched.
    expect((await getDomain(later.id, true)).body).toMatchObject({ id: later.id, status: 'deleting' });
    const live = await getDomain(kept.id, false);
    expect(live.status).toBe(200);
    expect(live.body.checks).toHaveLength(4);
    const listed = await api.request('GET', '/v1/domains?include_deleted=true&limit=100', { token: key });
    expect(listed.body.items.map((d: { id: string }) => d.id)).toEqual([kept.id, later.id]);
  });
});
