import { UniqueViolation } from '@cds/data';
import { at, anApplication, openMigratedStore, type MigratedStore } from './data-fixtures';

describe('applications repository', () => {
  let ctx: MigratedStore;

  beforeAll(async () => {
    ctx = await openMigratedStore();
  });
  afterAll(() => ctx.close());

  it('inserts and reads an application back, timestamps to the millisecond', async () => {
    const app = anApplication({ createdAt: at(1), updatedAt: at(2), contactEmail: null });
    await ctx.store.run((r) => r.applications.insert(app));
    const found = await ctx.store.run((r) => r.applications.findById(app.id));
    expect(found).toEqual(app);
    expect(found?.createdAt.toISOString()).toBe('2025-03-04T05:06:07.090Z');
    expect(await ctx.store.run((r) => r.applications.findLiveBySlug(app.slug))).toEqual(app);
  });

  it('updates only the fields of the patch', async () => {
    const app = anApplication();
    await ctx.store.run((r) => r.applications.insert(app));
    const limits = { ...app.limits, live_domains: 3 };
    await ctx.store.run((r) => r.applications.update(app.id, { status: 'suspended', limits, updatedAt: at(500), name: undefined }));
    await ctx.store.run((r) => r.applications.update(app.id, {}));
    expect(await ctx.store.run((r) => r.applications.findById(app.id))).toEqual({ ...app, status: 'suspended', limits, updatedAt: at(500) });
  });

  it('refuses a second live application with the same slug, and frees the slug on deletion', async () => {
    const first = anApplication();
    await ctx.store.run((r) => r.applications.insert(first));
    const clash = ctx.store.run((r) => r.applications.insert(anApplication({ slug: first.slug })));
    await expect(clash).rejects.toBeInstanceOf(UniqueViolation);
    await expect(clash).rejects.toMatchObject({ constraint: 'uq_applications_live_slug' });

    await ctx.store.run((r) => r.applications.update(first.id, { deletedAt: at(1000) }));
    expect(await ctx.store.run((r) => r.applications.findLiveBySlug(first.slug))).toBeNull();
    expect((await ctx.store.run((r) => r.applications.findById(first.id)))?.deletedAt).toEqual(at(1000));

    const second = anApplication({ slug: first.slug });
    await ctx.store.run((r) => r.applications.insert(second));
    expect((await ctx.store.run((r) => r.applications.findLiveBySlug(first.slug)))?.id).toBe(second.id);
  });

  it('lists live applications oldest first, by created_at then id', async () => {
    const before = await ctx.store.run((r) => r.applications.listLive());
    const ids = ['00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001'];
    const later = anApplication({ createdAt: at(-1) });
    const tieB = anApplication({ id: ids[0], createdAt: at(-2) });
    const tieA = anApplication({ id: ids[1], createdAt: at(-2) });
    const deleted = anApplication({ createdAt: at(-3), deletedAt: at(0) });
    await ctx.store.run(async (r) => {
      for (const app of [later, tieB, deleted, tieA]) await r.applications.insert(app);
    });
    const live = await ctx.store.run((r) => r.applications.listLive());
    expect(live.map((a) => a.id).slice(0, 3)).toEqual([tieA.id, tieB.id, later.id]);
    expect(live).toHaveLength(before.length + 3);
  });

  it('takes the application and deployment locks inside a transaction', async () => {
    const app = anApplication();
    await ctx.store.run((r) => r.applications.insert(app));
    const count = await ctx.store.transaction(async (r) => {
      await r.applications.lock(app.id);
      await r.applications.lockDeployment();
      return r.domains.countLive(app.id);
    });
    expect(count).toBe(0);
  });
});
