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

  describe('authenticate', () => {
    const input = (keyHash: string, now: Date, throttleKey = `auth-fail:test:${keyHash.slice(0, 8)}`) => ({
      keyHash, now, throttleKey, throttleLimit: 3, budgetPrefix: 'api:', windowSeconds: 60,
    });

    it('finds a valid credential with its live application, rows as they were stored, and counts one hit on its budget', async () => {
      const owner = anApplication({ contactEmail: null, limits: { ...app.limits, api_requests_per_minute: 7 } });
      await ctx.store.run((r) => r.applications.insert(owner));
      const credential = aCredential(owner.id, { expiresAt: at(120_000), lastUsedAt: at(6) });
      await ctx.store.run((r) => r.credentials.insert(credential));
      const first = await ctx.store.run((r) => r.credentials.authenticate(input(credential.keyHash, at(10))));
      expect(first).toEqual({ failures: 0, found: { credential, application: owner }, budget: { count: 1, resetAt: new Date(Math.ceil(at(10).getTime() / 60_000) * 60_000) } });
      const second = await ctx.store.run((r) => r.credentials.authenticate(input(credential.keyHash, at(20))));
      expect(second.budget?.count).toBe(2);
      expect(await ctx.store.run((r) => r.rateCounters.peek(`api:${credential.id}`, 60, at(20)))).toMatchObject({ count: 2 });
    });

    it('finds nothing and counts nothing for an unknown, revoked or expired key, or a deleted application', async () => {
      const owner = anApplication();
      await ctx.store.run((r) => r.applications.insert(owner));
      const revoked = aCredential(owner.id, { revokedAt: at(4) });
      const expired = aCredential(owner.id, { expiresAt: at(5) });
      const live = aCredential(owner.id);
      await ctx.store.run(async (r) => {
        for (const c of [revoked, expired, live]) await r.credentials.insert(c);
      });
      for (const keyHash of ['0'.repeat(64), revoked.keyHash, expired.keyHash]) {
        expect(await ctx.store.run((r) => r.credentials.authenticate(input(keyHash, at(5))))).toEqual({ failures: 0, found: null, budget: null });
      }
      await ctx.store.run((r) => r.applications.update(owner.id, { deletedAt: at(7) }));
      expect(await ctx.store.run((r) => r.credentials.authenticate(input(live.keyHash, at(8))))).toEqual({ failures: 0, found: null, budget: null });
      for (const c of [revoked, expired, live]) expect((await ctx.store.run((r) => r.rateCounters.peek(`api:${c.id}`, 60, at(8)))).count).toBe(0);
    });

    it('reports the failures of the address, and counts no budget once the address is throttled', async () => {
      const credential = aCredential(app.id);
      await ctx.store.run((r) => r.credentials.insert(credential));
      const throttleKey = 'auth-fail:test:throttled';
      await ctx.store.run((r) => r.rateCounters.hit(throttleKey, 60, at(1), { amount: 2 }));
      const below = await ctx.store.run((r) => r.credentials.authenticate(input(credential.keyHash, at(2), throttleKey)));
      expect(below).toMatchObject({ failures: 2, budget: { count: 1 } });
      await ctx.store.run((r) => r.rateCounters.hit(throttleKey, 60, at(3)));
      const throttled = await ctx.store.run((r) => r.credentials.authenticate(input(credential.keyHash, at(4), throttleKey)));
      expect(throttled).toMatchObject({ failures: 3, budget: null });
      expect(throttled.found?.credential.id).toBe(credential.id);
      expect((await ctx.store.run((r) => r.rateCounters.peek(`api:${credential.id}`, 60, at(4)))).count).toBe(1);
      // A failure counted in an earlier window does not count now.
      expect((await ctx.store.run((r) => r.credentials.authenticate(input(credential.keyHash, at(120_000), throttleKey)))).failures).toBe(0);
    });
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
