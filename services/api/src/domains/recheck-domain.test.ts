import { ROUTING_KEYS } from '@cds/core';
import { fakeApplication, fakeStore } from '../../../../test/support/fake-store';
import { useCaseContext } from '../../../../test/support/use-case-context';
import { deleteDomain } from './delete-domain';
import { recheckDomain } from './recheck-domain';
import { registerDomain } from './register-domain';

const T0 = new Date('2025-06-01T10:59:30.000Z');

const later = (ms: number) => new Date(T0.getTime() + ms);

async function setUp(domains = 1) {
  const application = fakeApplication({ limits: { live_domains: 100 } });
  const store = fakeStore({ applications: [application] });
  const ctx = useCaseContext(store, T0);
  const ids: string[] = [];
  for (let i = 0; i < domains; i++) ids.push((await registerDomain(ctx, application, { hostname: `d${i}.example.com`, reference: 'ws' })).id);
  return { application, store, ctx, ids, announced: store.tables.outbox.length, commits: ctx.commits };
}

describe('recheckDomain', () => {
  it('makes the domain due now, asks the checker and answers the domain as it was', async () => {
    const { application, store, ctx, ids: [id], announced, commits } = await setUp();
    ctx.at = later(5_000);

    const resource = await recheckDomain(ctx, application, id as string);

    expect(resource).toMatchObject({ id, status: 'pending_dns' });
    expect(store.tables.domains[0]?.nextCheckAt).toEqual(later(5_000));
    expect(store.tables.outbox.slice(announced).map((row) => [row.routingKey, row.payload])).toEqual([
      [ROUTING_KEYS.domainCheckRequested, { domain_id: id, application_id: application.id, reason: 'recheck' }],
    ]);
    expect(ctx.commits).toBe(commits + 1);
  });

  it('allows one recheck per domain per 60 s, counted from the recheck (not the clock minute)', async () => {
    const { application, store, ctx, ids: [id], announced } = await setUp();
    await recheckDomain(ctx, application, id as string);

    ctx.at = later(45_000); // past a minute boundary, 45 s after the recheck
    const refused = await recheckDomain(ctx, application, id as string).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'rate_limited', details: { retry_after_seconds: 15 }, headers: { 'Retry-After': '15' } });

    ctx.at = later(60_000);
    await expect(recheckDomain(ctx, application, id as string)).resolves.toMatchObject({ id });
    expect(store.tables.outbox.slice(announced)).toHaveLength(2);
  });

  it('allows 60 rechecks per application per hour; the 61st is refused and announces nothing', async () => {
    const { application, store, ctx, ids, announced } = await setUp(61);
    for (const [i, id] of ids.slice(0, 60).entries()) {
      ctx.at = later(i * 1000);
      await recheckDomain(ctx, application, id);
    }
    ctx.at = later(60_000);
    const refused = await recheckDomain(ctx, application, ids[60] as string).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'rate_limited', details: { retry_after_seconds: 3540 } });
    expect(store.tables.outbox.slice(announced)).toHaveLength(60);
  });

  it('refuses a deleted domain with invalid_status_transition', async () => {
    const { application, ctx, ids: [id] } = await setUp();
    await deleteDomain(ctx, application, id as string);
    await expect(recheckDomain(ctx, application, id as string)).rejects.toMatchObject({ code: 'invalid_status_transition', details: { status: 'deleting' } });
  });

  it('answers domain_not_found for another application\'s domain, without using its allowance', async () => {
    const { application, store, ctx, ids: [id] } = await setUp();
    const stranger = fakeApplication();
    store.tables.applications.push(stranger);
    await expect(recheckDomain(ctx, stranger, id as string)).rejects.toMatchObject({ code: 'domain_not_found' });
    await expect(recheckDomain(ctx, application, id as string)).resolves.toMatchObject({ id });
  });
});
