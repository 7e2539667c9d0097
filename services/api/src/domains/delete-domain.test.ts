import { randomUUID } from 'node:crypto';
import { AppError, ROUTING_KEYS } from '@cds/core';
import { fakeApplication, fakeStore } from '../../../../test/support/fake-store';
import { useCaseContext } from '../../../../test/support/use-case-context';
import { deleteDomain } from './delete-domain';
import { registerDomain } from './register-domain';

const CREATED = new Date('2025-06-01T10:00:00.000Z');
const DELETED = new Date('2025-06-01T11:00:00.000Z');

describe('deleteDomain', () => {
  it('turns the domain deleting, frees its hostname and announces domain.deleted with the resource it answers', async () => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    const created = await registerDomain(useCaseContext(store, CREATED), application, { hostname: 'shop.example.com', reference: 'ws' });
    const before = store.tables.outbox.length;
    const ctx = useCaseContext(store, DELETED);

    const resource = await deleteDomain(ctx, application, created.id);

    expect(resource).toMatchObject({ id: created.id, status: 'deleting', deleted_at: DELETED.toISOString(), updated_at: DELETED.toISOString(), dns_records: [] });
    expect(await store.run((r) => r.domains.findLiveByHostname('shop.example.com'))).toBeNull();
    expect(store.tables.applications[0]?.liveDomains).toBe(0);
    const written = store.tables.outbox.slice(before);
    expect(written.map((row) => row.routingKey)).toEqual([ROUTING_KEYS.eventEmitted, ROUTING_KEYS.domainChanged]);
    expect(written[0]?.payload).toMatchObject({ type: 'domain.deleted', application_id: application.id, data: { domain: resource } });
    expect(written[1]?.payload).toEqual({ domain_id: created.id, hostname: 'shop.example.com', application_id: application.id, change: 'deleted' });
    expect(ctx.commits).toBe(1);
  });

  it('answers a repeat with the same representation and announces nothing again', async () => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    const created = await registerDomain(useCaseContext(store, CREATED), application, { hostname: 'shop.example.com', reference: 'ws' });
    const first = await deleteDomain(useCaseContext(store, DELETED), application, created.id);
    const announced = store.tables.outbox.length;
    const ctx = useCaseContext(store, new Date(DELETED.getTime() + 60_000));

    expect(await deleteDomain(ctx, application, created.id.toUpperCase())).toEqual(first);
    expect(store.tables.outbox).toHaveLength(announced);
    expect(ctx.commits).toBe(0);
  });

  it.each([
    ['an unknown id', () => randomUUID()],
    ['an id that is no uuid', () => 'nope'],
  ])('answers domain_not_found for %s', async (_name, id) => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    const err = await deleteDomain(useCaseContext(store, DELETED), application, id()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'domain_not_found', status: 404 });
  });

  it('answers domain_not_found for another application\'s domain and leaves it live', async () => {
    const [owner, other] = [fakeApplication(), fakeApplication()];
    const store = fakeStore({ applications: [owner, other] });
    const created = await registerDomain(useCaseContext(store, CREATED), owner, { hostname: 'shop.example.com', reference: 'ws' });

    await expect(deleteDomain(useCaseContext(store, DELETED), other, created.id)).rejects.toMatchObject({ code: 'domain_not_found' });
    expect(await store.run((r) => r.domains.findLiveByHostname('shop.example.com'))).toMatchObject({ id: created.id });
  });
});
