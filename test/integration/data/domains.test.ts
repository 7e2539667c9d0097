import { ROUTING_KEYS } from '@cds/core';
import { UniqueViolation, type ApplicationRow, type DomainRow } from '@cds/data';
import { aDomain, anApplication, at, checksFor, openMigratedStore, type MigratedStore } from './data-fixtures';

describe('domains repository', () => {
  let ctx: MigratedStore;

  beforeAll(async () => {
    ctx = await openMigratedStore();
  });
  afterAll(() => ctx.close());

  async function newApplication(): Promise<ApplicationRow> {
    const app = anApplication();
    await ctx.store.run((r) => r.applications.insert(app));
    return app;
  }

  async function insert(domain: DomainRow): Promise<DomainRow> {
    await ctx.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    return domain;
  }

  it('inserts a domain with its four checks and reads both back', async () => {
    const app = await newApplication();
    const domain = await insert(aDomain(app.id, {
      metadata: { plan: 'gold', seats: 3.5, beta: true, note: null, 'ключ': 'värde ✓' },
      nextCheckAt: at(60_001),
    }));
    expect(await ctx.store.run((r) => r.domains.find(app.id, domain.id, false))).toEqual(domain);
    const checks = await ctx.store.run((r) => r.domains.checksOf([domain.id]));
    expect(checks).toEqual(checksFor(domain.id));
    expect(await ctx.store.run((r) => r.domains.checksOf([]))).toEqual([]);
  });

  it('keeps tenants apart and hides deleted domains unless asked', async () => {
    const app = await newApplication();
    const other = await newApplication();
    const domain = await insert(aDomain(app.id));
    expect(await ctx.store.run((r) => r.domains.find(other.id, domain.id, true))).toBeNull();

    expect(await ctx.store.run((r) => r.domains.markDeleted(other.id, domain.id, at(5)))).toBe(false);
    expect(await ctx.store.run((r) => r.domains.markDeleted(app.id, domain.id, at(5)))).toBe(true);
    expect(await ctx.store.run((r) => r.domains.find(app.id, domain.id, false))).toBeNull();
    expect(await ctx.store.run((r) => r.domains.find(app.id, domain.id, true))).toEqual({ ...domain, status: 'deleting', deletedAt: at(5), updatedAt: at(5), nextCheckAt: null });
    expect(await ctx.store.run((r) => r.domains.findLiveByHostname(domain.hostname))).toBeNull();
    // Deleting it again changes nothing and counts nothing out.
    expect(await ctx.store.run((r) => r.domains.markDeleted(app.id, domain.id, at(9)))).toBe(false);
    expect((await ctx.store.run((r) => r.applications.findById(app.id)))?.liveDomains).toBe(0);
  });

  it('allows a hostname once among live domains; a deleted one does not block it', async () => {
    const app = await newApplication();
    const other = await newApplication();
    const first = await insert(aDomain(app.id));

    const clash = ctx.store.run((r) => r.domains.insert(aDomain(other.id, { hostname: first.hostname }), []));
    await expect(clash).rejects.toBeInstanceOf(UniqueViolation);
    await expect(clash).rejects.toMatchObject({ constraint: 'uq_domains_live_hostname' });

    await ctx.store.run((r) => r.domains.markDeleted(app.id, first.id, at(1)));
    const second = await insert(aDomain(other.id, { hostname: first.hostname }));
    expect((await ctx.store.run((r) => r.domains.findLiveByHostname(first.hostname)))?.id).toBe(second.id);
  });

  it('registers within the limit with its outbox messages, and on a refusal or a clash writes nothing', async () => {
    const app = await newApplication();
    const messages = (id: string) => [{ routingKey: ROUTING_KEYS.domainCheckRequested, payload: { domain_id: id, application_id: app.id, reason: 'created' } } as const];
    const first = aDomain(app.id);
    expect(await ctx.store.run((r) => r.domains.register(first, checksFor(first.id), { limit: 1, messages: messages(first.id) }))).toEqual({ admitted: true });
    const outbox = await ctx.store.run((r) => r.outbox.all(ROUTING_KEYS.domainCheckRequested));
    expect(outbox.filter((row) => (row.payload as { domain_id: string }).domain_id === first.id)).toHaveLength(1);

    const refused = aDomain(app.id);
    expect(await ctx.store.run((r) => r.domains.register(refused, checksFor(refused.id), { limit: 1, messages: messages(refused.id) }))).toEqual({ admitted: false, live: 1 });
    const clash = aDomain(app.id, { hostname: first.hostname });
    await expect(ctx.store.run((r) => r.domains.register(clash, checksFor(clash.id), { limit: 5, messages: messages(clash.id) }))).rejects.toBeInstanceOf(UniqueViolation);

    for (const id of [refused.id, clash.id]) {
      expect(await ctx.store.run((r) => r.domains.find(app.id, id, true))).toBeNull();
      expect(await ctx.store.run((r) => r.domains.checksOf([id]))).toEqual([]);
    }
    const ids = (await ctx.store.run((r) => r.outbox.all(ROUTING_KEYS.domainCheckRequested))).map((row) => (row.payload as { domain_id: string }).domain_id);
    expect(ids).not.toContain(refused.id);
    expect(ids).not.toContain(clash.id);
    expect((await ctx.store.run((r) => r.applications.findById(app.id)))?.liveDomains).toBe(1);
  });

  it('writes a domain and its checks atomically', async () => {
    const app = await newApplication();
    const domain = aDomain(app.id);
    const duplicateCheck = [...checksFor(domain.id), checksFor(domain.id)[0]!];
    await expect(ctx.store.run((r) => r.domains.insert(domain, duplicateCheck))).rejects.toBeInstanceOf(UniqueViolation);
    expect(await ctx.store.run((r) => r.domains.find(app.id, domain.id, true))).toBeNull();
    expect(await ctx.store.run((r) => r.domains.checksOf([domain.id]))).toEqual([]);
  });

  it('lists by created_at then id, with filters and paging', async () => {
    const app = await newApplication();
    const ids = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
    // Inserted out of order; created_at values differ by one millisecond only.
    const d3 = await insert(aDomain(app.id, { id: ids(3), createdAt: at(2), reference: 'a', status: 'ready' }));
    const d2 = await insert(aDomain(app.id, { id: ids(2), createdAt: at(1), reference: 'b' }));
    const d1 = await insert(aDomain(app.id, { id: ids(1), createdAt: at(1), reference: 'a' }));
    const d0 = await insert(aDomain(app.id, { id: ids(4), createdAt: at(0), reference: 'a', deletedAt: at(9), status: 'deleting' }));
    const page = (f: { reference?: string; status?: DomainRow['status']; includeDeleted?: boolean; limit?: number; offset?: number }) =>
      ctx.store.run((r) => r.domains.list(app.id, { includeDeleted: false, limit: 100, offset: 0, ...f })).then((rows) => rows.map((d) => d.id));

    expect(await page({})).toEqual([d1.id, d2.id, d3.id]);
    expect(await page({ includeDeleted: true })).toEqual([d0.id, d1.id, d2.id, d3.id]);
    expect(await page({ reference: 'a' })).toEqual([d1.id, d3.id]);
    expect(await page({ status: 'ready' })).toEqual([d3.id]);
    expect(await page({ reference: 'a', status: 'pending_dns' })).toEqual([d1.id]);
    expect(await page({ limit: 2, offset: 1, includeDeleted: true })).toEqual([d1.id, d2.id]);
    expect(await page({ limit: 2, offset: 3 })).toEqual([]);

    expect((await ctx.store.run((r) => r.domains.listLive(app.id))).map((d) => d.id)).toEqual([d1.id, d2.id, d3.id]);
    expect(await ctx.store.run((r) => r.domains.countLive(app.id))).toBe(3);
    const checks = await ctx.store.run((r) => r.domains.checksOf([d3.id, d1.id]));
    expect(checks.map((c) => `${c.domainId}/${c.type}`)).toEqual([
      ...checksFor(d3.id).map((c) => `${d3.id}/${c.type}`),
      ...checksFor(d1.id).map((c) => `${d1.id}/${c.type}`),
    ]);
  });

  it('pages deep into the live domains by the index, in the order of the shallow pages', async () => {
    const app = await newApplication();
    const other = await newApplication();
    // 110 live domains (pairs share created_at: id breaks the tie), every 10th deleted, another application's between them.
    const live: string[] = [];
    for (let i = 0; i < 121; i += 1) {
      const deleted = i % 11 === 10;
      const domain = await insert(aDomain(app.id, { createdAt: at(Math.floor(i / 2)), ...(deleted ? { deletedAt: at(500), status: 'deleting' as const } : {}) }));
      if (!deleted) live.push(domain.id);
      if (i % 7 === 0) await insert(aDomain(other.id, { createdAt: at(Math.floor(i / 2)) }));
    }
    const byTime = (await ctx.store.run((r) => r.domains.list(app.id, { includeDeleted: false, limit: 200, offset: 0 }))).map((d) => d.id);
    expect(new Set(byTime)).toEqual(new Set(live));
    const page = (offset: number, limit: number) =>
      ctx.store.run((r) => r.domains.list(app.id, { includeDeleted: false, limit, offset })).then((rows) => rows.map((d) => d.id));
    expect(await page(100, 5)).toEqual(byTime.slice(100, 105));
    expect(await page(105, 50)).toEqual(byTime.slice(105));
    expect(await page(110, 5)).toEqual([]);
  });

  it('counts live domains across the deployment', async () => {
    const before = await ctx.store.run((r) => r.domains.countLiveAll());
    const app = await newApplication();
    await insert(aDomain(app.id));
    await insert(aDomain(app.id, { deletedAt: at(1) }));
    expect(await ctx.store.run((r) => r.domains.countLiveAll())).toBe(before + 1);
  });

  it('updates only the fields of the patch, with millisecond timestamps', async () => {
    const app = await newApplication();
    const domain = await insert(aDomain(app.id));
    await ctx.store.run((r) => r.domains.update(app.id, domain.id, { status: 'ready', nextCheckAt: null, updatedAt: at(123), metadata: { k: 1 } }));
    const found = await ctx.store.run((r) => r.domains.find(app.id, domain.id, false));
    expect(found).toEqual({ ...domain, status: 'ready', nextCheckAt: null, updatedAt: at(123), metadata: { k: 1 } });
    expect(found?.updatedAt.getUTCMilliseconds()).toBe(212);
  });
});
