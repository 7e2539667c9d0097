import { AppError, ROUTING_KEYS } from '@cds/core';
import { fakeApplication, fakeStore, type FakeStore } from '../../../../test/support/fake-store';
import type { UseCaseContext } from '../shared/context';
import { registerDomain } from './register-domain';

const NOW = new Date('2025-06-01T10:00:00.000Z');
const EDGE_TARGET = 'edge.example.net';

function contextOf(store: FakeStore, deploymentDomainLimit = 0): UseCaseContext & { commits: number } {
  const ctx = { store, edgeTarget: EDGE_TARGET, deploymentDomainLimit, now: () => NOW, commits: 0, afterCommit: () => { ctx.commits += 1; } };
  return ctx;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('registerDomain', () => {
  it('writes the domain, its four pending checks and both announcements in one unit of work, then wakes the relay', async () => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    const ctx = contextOf(store);

    const resource = await registerDomain(ctx, application, { hostname: 'Shop.Example.COM', reference: 'ws_1', metadata: { plan: 'gold' } });

    expect(resource).toMatchObject({ hostname: 'shop.example.com', reference: 'ws_1', status: 'pending_dns', metadata: { plan: 'gold' }, created_at: NOW.toISOString(), deleted_at: null });
    expect(resource.checks.map((c) => [c.type, c.status])).toEqual([['ownership', 'pending'], ['routing', 'pending'], ['certificate', 'pending'], ['origin', 'pending']]);
    expect(resource.dns_records.map((r) => r.type).sort()).toEqual(['CNAME', 'TXT']);
    expect(store.tables.domains).toHaveLength(1);
    expect(store.tables.checks.filter((c) => c.domainId === resource.id)).toHaveLength(4);
    expect(store.tables.outbox.map((row) => [row.routingKey, row.payload])).toEqual([
      [ROUTING_KEYS.domainCheckRequested, { domain_id: resource.id, application_id: application.id, reason: 'created' }],
      [ROUTING_KEYS.domainChanged, { domain_id: resource.id, hostname: 'shop.example.com', application_id: application.id, change: 'created' }],
    ]);
    expect(store.units).toEqual(['run']);
    expect(ctx.commits).toBe(1);
  });

  it.each([
    ['an empty reference', ''],
    ['a reference of 256 characters', 'r'.repeat(256)],
    ['a NUL in the reference', 'ws\u00001'],
  ])('refuses %s with invalid_reference and writes nothing', async (_name, reference) => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    const err = await refusal(registerDomain(contextOf(store), application, { hostname: 'shop.example.com', reference }));
    expect(err).toMatchObject({ code: 'invalid_reference', details: { field: 'reference' } });
    expect(store.units).toEqual([]);
  });

  it('answers hostname_already_claimed for a hostname live in any application, and does not wake the relay', async () => {
    const owner = fakeApplication();
    const other = fakeApplication();
    const store = fakeStore({ applications: [owner, other] });
    await registerDomain(contextOf(store), owner, { hostname: 'shop.example.com', reference: 'first' });
    const ctx = contextOf(store);

    const err = await refusal(registerDomain(ctx, other, { hostname: 'SHOP.example.com', reference: 'second' }));

    expect(err).toMatchObject({ code: 'hostname_already_claimed', status: 409, details: { hostname: 'shop.example.com' } });
    expect(store.tables.domains).toHaveLength(1);
    expect(store.tables.outbox).toHaveLength(2);
    expect(ctx.commits).toBe(0);
  });

  it('answers domain_limit_reached at the application\'s live_domains, naming the limit and the live count', async () => {
    const application = fakeApplication({ limits: { live_domains: 1 } });
    const store = fakeStore({ applications: [application] });
    await registerDomain(contextOf(store), application, { hostname: 'one.example.com', reference: 'ws' });

    const err = await refusal(registerDomain(contextOf(store), application, { hostname: 'two.example.com', reference: 'ws' }));

    expect(err).toMatchObject({ code: 'domain_limit_reached', details: { scope: 'application', limit: 1, live: 1 } });
    expect(store.tables.domains.map((d) => d.hostname)).toEqual(['one.example.com']);
  });

  it('prefers hostname_already_claimed when the application is also at its limit', async () => {
    const full = fakeApplication({ limits: { live_domains: 1 } });
    const owner = fakeApplication();
    const store = fakeStore({ applications: [full, owner] });
    await registerDomain(contextOf(store), full, { hostname: 'mine.example.com', reference: 'ws' });
    await registerDomain(contextOf(store), owner, { hostname: 'taken.example.com', reference: 'ws' });

    const err = await refusal(registerDomain(contextOf(store), full, { hostname: 'taken.example.com', reference: 'ws' }));

    expect(err.code).toBe('hostname_already_claimed');
  });

  it('counts every application\'s live domains against the deployment limit, in a transaction, and writes nothing when refused', async () => {
    const [first, second] = [fakeApplication(), fakeApplication()];
    const store = fakeStore({ applications: [first, second] });
    await registerDomain(contextOf(store, 2), first, { hostname: 'a.example.com', reference: 'ws' });
    await registerDomain(contextOf(store, 2), second, { hostname: 'b.example.com', reference: 'ws' });
    const ctx = contextOf(store, 2);

    const err = await refusal(registerDomain(ctx, first, { hostname: 'c.example.com', reference: 'ws' }));

    expect(err).toMatchObject({ code: 'domain_limit_reached', details: { scope: 'deployment', limit: 2, live: 2 } });
    expect(store.units).toEqual(['transaction', 'transaction', 'transaction']);
    expect(store.tables.domains).toHaveLength(2);
    expect(store.tables.outbox).toHaveLength(4);
    expect(ctx.commits).toBe(0);
  });
});
