import { AppError, ROUTING_KEYS } from '@cds/core';
import { fakeApplication, fakeStore } from '../../../../test/support/fake-store';
import { useCaseContext } from '../../../../test/support/use-case-context';
import { registerDomain } from './register-domain';

const NOW = new Date('2025-06-01T10:00:00.000Z');

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('registerDomain', () => {
  it('writes the domain, its four pending checks and both announcements in one unit of work, then wakes the relay', async () => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    const ctx = useCaseContext(store, NOW);

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
    const err = await refusal(registerDomain(useCaseContext(store, NOW), application, { hostname: 'shop.example.com', reference }));
    expect(err).toMatchObject({ code: 'invalid_reference', details: { field: 'reference' } });
    expect(store.units).toEqual([]);
  });

  it('answers hostname_already_claimed for a hostname live in any application, and does not wake the relay', async () => {
    const owner = fakeApplication();
    const other = fakeApplication();
    const store = fakeStore({ applications: [owner, other] });
    await registerDomain(useCaseContext(store, NOW), owner, { hostname: 'shop.example.com', reference: 'first' });
    const ctx = useCaseContext(store, NOW);

    const err = await refusal(registerDomain(ctx, other, { hostname: 'SHOP.example.com', reference: 'second' }));

    expect(err).toMatchObject({ code: 'hostname_already_claimed', status: 409, details: { hostname: 'shop.example.com' } });
    expect(store.tables.domains).toHaveLength(1);
    expect(store.tables.outbox).toHaveLength(2);
    expect(ctx.commits).toBe(0);
  });

  it('answers domain_limit_reached at the application\'s live_domains, naming the limit and the live count', async () => {
    const application = fakeApplication({ limits: { live_domains: 1 } });
    const store = fakeStore({ applications: [application] });
    await registerDomain(useCaseContext(store, NOW), application, { hostname: 'one.example.com', reference: 'ws' });

    const err = await refusal(registerDomain(useCaseContext(store, NOW), application, { hostname: 'two.example.com', reference: 'ws' }));

    expect(err).toMatchObject({ code: 'domain_limit_reached', details: { scope: 'application', limit: 1, live: 1 } });
    expect(store.tables.domains.map((d) => d.hostname)).toEqual(['one.example.com']);
  });

  it('prefers hostname_already_claimed when the application is also at its limit', async () => {
    const full = fakeApplication({ limits: { live_domains: 1 } });
    const owner = fakeApplication();
    const store = fakeStore({ applications: [full, owner] });
    await registerDomain(useCaseContext(store, NOW), full, { hostname: 'mine.example.com', reference: 'ws' });
    await registerDomain(useCaseContext(store, NOW), owner, { hostname: 'taken.example.com', reference: 'ws' });

    const err = await refusal(registerDomain(useCaseContext(store, NOW), full, { hostname: 'taken.example.com', reference: 'ws' }));

    expect(err.code).toBe('hostname_already_claimed');
  });

  it('counts every application\'s live domains against the deployment limit, in a transaction, and writes nothing when refused', async () => {
    const [first, second] = [fakeApplication(), fakeApplication()];
    const store = fakeStore({ applications: [first, second] });
    await registerDomain(useCaseContext(store, NOW, { deploymentDomainLimit: 2 }), first, { hostname: 'a.example.com', reference: 'ws' });
    await registerDomain(useCaseContext(store, NOW, { deploymentDomainLimit: 2 }), second, { hostname: 'b.example.com', reference: 'ws' });
    const ctx = useCaseContext(store, NOW, { deploymentDomainLimit: 2 });

    const err = await refusal(registerDomain(ctx, first, { hostname: 'c.example.com', reference: 'ws' }));

    expect(err).toMatchObject({ code: 'domain_limit_reached', details: { scope: 'deployment', limit: 2, live: 2 } });
    expect(store.units).toEqual(['transaction', 'transaction', 'transaction']);
    expect(store.tables.domains).toHaveLength(2);
    expect(store.tables.outbox).toHaveLength(4);
    expect(ctx.commits).toBe(0);
  });

  it('accepts an apex domain only when the deployment has edge addresses, and asks for A and AAAA records then (DECISIONS §12)', async () => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    const refused = await refusal(registerDomain(useCaseContext(store, NOW), application, { hostname: 'customer.com', reference: 'ws' }));
    expect(refused).toMatchObject({ code: 'apex_not_supported', details: { field: 'hostname' } });
    const ctx = useCaseContext(store, NOW, { edgeAddresses: ['192.0.2.1', '2001:db8::1'] });
    const resource = await registerDomain(ctx, application, { hostname: 'customer.com', reference: 'ws' });
    expect(resource.dns_records.map((r) => [r.type, r.name, r.value])).toEqual([
      ['TXT', '_custom-domain-challenge.customer.com', expect.any(String)],
      ['A', 'customer.com', '192.0.2.1'],
      ['AAAA', 'customer.com', '2001:db8::1'],
    ]);
  });

  it('stores redirect_to, normalized, when it names a live domain of the application; otherwise validation_error on redirect_to and nothing written', async () => {
    const owner = fakeApplication();
    const other = fakeApplication();
    const store = fakeStore({ applications: [owner, other] });
    await registerDomain(useCaseContext(store, NOW), owner, { hostname: 'www.example.com', reference: 'ws' });
    await registerDomain(useCaseContext(store, NOW), other, { hostname: 'www.example.org', reference: 'ws' });

    const resource = await registerDomain(useCaseContext(store, NOW), owner, { hostname: 'shop.example.com', reference: 'ws', redirect_to: 'WWW.example.com.' });
    expect(resource.redirect_to).toBe('www.example.com');
    expect(store.tables.domains.find((d) => d.id === resource.id)?.redirectTo).toBe('www.example.com');
    expect((await registerDomain(useCaseContext(store, NOW), owner, { hostname: 'a.example.com', reference: 'ws' })).redirect_to).toBeNull();

    for (const redirectTo of ['www.example.org', 'nowhere.example.com', 'b.example.com', '*.example.com']) {
      const err = await refusal(registerDomain(useCaseContext(store, NOW), owner, { hostname: 'b.example.com', reference: 'ws', redirect_to: redirectTo }));
      expect(err).toMatchObject({ code: 'validation_error', status: 422, details: { field: 'redirect_to', errors: [expect.objectContaining({ location: 'body', field: 'redirect_to' })] } });
    }
    expect(store.tables.domains.filter((d) => d.hostname === 'b.example.com')).toEqual([]);
  });
});
