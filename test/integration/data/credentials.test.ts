import { UniqueViolation } from '@cds/data';
import { aCredential, anApplication, at, openMigratedStore, T0, type MigratedStore } from './data-fixtures';

describe('credentials repository', () => {
  let ctx: MigratedStore;
  const app = anApplication();
  const otherApp = anApplication();

  beforeAll(async () => {
    ctx = await openMigratedStore();
    await ctx.store.run(async (r) => {
      await r.applications.insert(app);
      await r.applications.insert(otherApp);
    });
  });
  afterAll(() => ctx.close());

  it('finds a credential by hash and by id within its application only', async () => {
    const credential = aCredential(app.id, { expiresAt: at(5), lastUsedAt: at(6) });
    await ctx.store.run((r) => r.credentials.insert(credential));
    expect(await ctx.store.run((r) => r.credentials.findByHash(credential.keyHash))).toEqual(credential);
    expect(await ctx.store.run((r) => r.credentials.find(app.id, credential.id))).toEqual(credential);
    expect(await ctx.store.run((r) => r.credentials.find(otherApp.id, credential.id))).toBeNull();
    expect(await ctx.store.run((r) => r.credentials.findByHash('0'.repeat(64)))).toBeNull();
  });

  it('finds a credential with its live application in one query, rows as they were stored', async () => {
    const owner = anApplication({ contactEmail: null, limits: { ...app.limits, api_requests_per_minute: 7 } });
    await ctx.store.run((r) => r.applications.insert(owner));
    const credential = aCredential(owner.id, { expiresAt: at(5), revokedAt: at(4), lastUsedAt: at(6) });
    await ctx.store.run((r) => r.credentials.insert(credential));
    expect(await ctx.store.run((r) => r.credentials.findWithApplication(credential.keyHash))).toEqual({ credential, application: owner });
    expect(await ctx.store.run((r) => r.credentials.findWithApplication('0'.repeat(64)))).toBeNull();
    await ctx.store.run((r) => r.applications.update(owner.id, { deletedAt: at(7) }));
    expect(await ctx.store.run((r) => r.credentials.findWithApplication(credential.keyHash))).toBeNull();
  });

  it('refuses a duplicate key hash', async () => {
    const credential = aCredential(app.id);
    await ctx.store.run((r) => r.credentials.insert(credential));
    const clash = ctx.store.run((r) => r.credentials.insert(aCredential(otherApp.id, { keyHash: credential.keyHash })));
    await expect(clash).rejects.toBeInstanceOf(UniqueViolation);
    await expect(clash).rejects.toMatchObject({ constraint: 'uq_credentials_key_hash' });
  });

  it('lists, counts, updates, revokes and deletes', async () => {
    const owner = anApplication();
    await ctx.store.run((r) => r.applications.insert(owner));
    const now = at(10_000);
    const active = aCredential(owner.id, { createdAt: at(3) });
    const expiresLater = aCredential(owner.id, { createdAt: at(2), expiresAt: at(10_001) });
    const expiresNow = aCredential(owner.id, { createdAt: at(1), expiresAt: now });
    const revoked = aCredential(owner.id, { createdAt: at(4), revokedAt: at(5) });
    await ctx.store.run(async (r) => {
      for (const c of [active, expiresLater, expiresNow, revoked]) await r.credentials.insert(c);
    });

    expect((await ctx.store.run((r) => r.credentials.list(owner.id))).map((c) => c.id)).toEqual([expiresNow.id, expiresLater.id, active.id, revoked.id]);
    expect(await ctx.store.run((r) => r.credentials.countActive(owner.id, now))).toBe(2);
    expect(await ctx.store.run((r) => r.credentials.countActive(owner.id, at(9_999)))).toBe(3);

    // Rotation: the old credential points at the new one; deleting the new one clears the pointer.
    await ctx.store.run((r) => r.credentials.update(owner.id, active.id, { replacedById: expiresLater.id, name: 'rotated' }));
    await ctx.store.run((r) => r.credentials.touchLastUsed(active.id, at(7)));
    expect(await ctx.store.run((r) => r.credentials.find(owner.id, active.id))).toEqual({ ...active, replacedById: expiresLater.id, name: 'rotated', lastUsedAt: at(7) });
    await ctx.store.run((r) => r.credentials.delete(otherApp.id, expiresLater.id));
    expect(await ctx.store.run((r) => r.credentials.find(owner.id, expiresLater.id))).not.toBeNull();
    await ctx.store.run((r) => r.credentials.delete(owner.id, expiresLater.id));
    expect(await ctx.store.run((r) => r.credentials.find(owner.id, expiresLater.id))).toBeNull();
    expect((await ctx.store.run((r) => r.credentials.find(owner.id, active.id)))?.replacedById).toBeNull();

    await ctx.store.run((r) => r.credentials.revokeAll(owner.id, at(20_000)));
    const after = await ctx.store.run((r) => r.credentials.list(owner.id));
    expect(after.map((c) => c.revokedAt)).toEqual([at(20_000), at(20_000), at(5)]);
    expect(await ctx.store.run((r) => r.credentials.countActive(owner.id, T0))).toBe(0);
  });
});
