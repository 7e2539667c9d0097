// What the edges read: one hostname's route in one query, the change feed
// (each change stamped by the database in its order of commits, only when
// something served changes, and read once however late its commit), live
// hostnames by page and ACME tokens in batches; and the read-only store the
// feed reads on.
import { randomUUID } from 'node:crypto';
import { createDataStore, type ApplicationRow, type DataStore, type EdgeChange, type FeedSnapshot } from '@cds/data';
import { execSql } from '../../support/raw-sql';
import { aDomain, anApplication, checksFor, openMigratedStore, type MigratedStore } from './data-fixtures';

describe('edge reads repository', () => {
  let ctx: MigratedStore;

  beforeAll(async () => {
    ctx = await openMigratedStore();
  });
  afterAll(() => ctx.close());

  async function newApplication(overrides: Partial<ApplicationRow> = {}): Promise<ApplicationRow> {
    const app = anApplication(overrides);
    const now = new Date();
    await ctx.store.transaction(async (r) => {
      await r.applications.insert(app);
      await r.origins.insert({ id: randomUUID(), applicationId: app.id, url: 'http://origin.test', healthPath: '/', status: 'active', lastVerifiedAt: now, lastError: null, createdAt: now, updatedAt: now });
    });
    return app;
  }

  const changes = (seen: FeedSnapshot | null, store: DataStore = ctx.store) => store.run((r) => r.edgeReads.changesSince(seen));
  const keysOf = (list: EdgeChange[]) => list.map((c) => `${c.kind}:${c.key}${c.live === undefined ? '' : c.live ? ':live' : ':gone'}`).sort();

  it('reads a live domain with its application (status included) and active origin in one query', async () => {
    const app = await newApplication({ status: 'suspended' });
    const domain = aDomain(app.id, { status: 'ready' });
    await ctx.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    expect(await ctx.store.run((r) => r.edgeReads.route(domain.hostname))).toEqual({
      domainId: domain.id, hostname: domain.hostname, reference: domain.reference, status: 'ready',
      applicationId: app.id, slug: app.slug, applicationStatus: 'suspended', limits: app.limits, originUrl: 'http://origin.test', redirectTo: null,
    });
    // A domain's redirect_to (DECISIONS §12) comes with its route.
    const redirecting = aDomain(app.id, { status: 'ready', redirectTo: domain.hostname });
    await ctx.store.run((r) => r.domains.insert(redirecting, checksFor(redirecting.id)));
    expect(await ctx.store.run((r) => r.edgeReads.route(redirecting.hostname))).toMatchObject({ domainId: redirecting.id, redirectTo: domain.hostname });
    expect(await ctx.store.run((r) => r.edgeReads.route('nobody.example'))).toBeNull();
    await ctx.store.run((r) => r.domains.markDeleted(app.id, domain.id, new Date()));
    expect(await ctx.store.run((r) => r.edgeReads.route(domain.hostname))).toBeNull();
  });

  it('feeds what the previous read could not see: first the snapshot alone, then inserts and the changes the edge serves from', async () => {
    const first = await changes(null);
    expect(first.changes).toEqual([]);
    const app = await newApplication();
    const domain = aDomain(app.id, { status: 'pending_dns' });
    await ctx.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    const created = await changes(first.snapshot);
    expect(created.snapshot.xmax).toBeGreaterThan(first.snapshot.xmin);
    expect(keysOf(created.changes)).toEqual([`application:${app.id}`, `domain:${domain.hostname}:live`, `origin:${app.id}`]);
    // What a read saw is not read again.
    expect((await changes(created.snapshot)).changes).toEqual([]);

    // A write that changes nothing served (the next check's time) is not fed; a status change is, whoever's clock wrote updated_at.
    const quiet = created.snapshot;
    await ctx.store.run((r) => r.domains.update(app.id, domain.id, { nextCheckAt: new Date() }));
    await ctx.store.run((r) => r.applications.update(app.id, { name: 'Renamed' }));
    expect((await changes(quiet)).changes).toEqual([]);
    await ctx.store.run((r) => r.domains.update(app.id, domain.id, { status: 'ready' }));
    await ctx.store.run((r) => r.applications.update(app.id, { status: 'suspended' }));
    await ctx.store.run((r) => r.assertionKeys.insert({ kid: `k-${randomUUID()}`, applicationId: app.id, secretSealed: 'sealed', createdAt: new Date(), revokedAt: null }));
    await ctx.store.run((r) => r.certificates.save({
      hostname: domain.hostname, domainId: domain.id, issuer: 'internal', pemChain: 'pem', keySealed: 'key', notBefore: new Date(), notAfter: new Date(Date.now() + 86_400_000), createdAt: new Date(),
    }));
    expect(keysOf((await changes(quiet)).changes)).toEqual([
      `application:${app.id}`, `assertion_key:${app.id}`, `certificate:${domain.hostname}`, `domain:${domain.hostname}:live`,
    ]);
  });

  it('feeds a soft-deleted domain as gone, unless its hostname is live again in another row', async () => {
    const app = await newApplication();
    const domain = aDomain(app.id);
    await ctx.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    const since = (await changes(null)).snapshot;
    await ctx.store.run((r) => r.domains.markDeleted(app.id, domain.id, new Date()));
    expect(keysOf((await changes(since)).changes)).toEqual([`domain:${domain.hostname}:gone`]);
    const again = aDomain(app.id, { hostname: domain.hostname });
    await ctx.store.run((r) => r.domains.insert(again, checksFor(again.id)));
    expect(keysOf((await changes(since)).changes)).toEqual([`domain:${domain.hostname}:live`, `domain:${domain.hostname}:live`]);
  });

  it('pages live hostnames in order, and finds ACME tokens in a batch', async () => {
    const app = await newApplication();
    const names = ['p-a.page.example', 'p-b.page.example', 'p-c.page.example'];
    for (const hostname of names) {
      const domain = aDomain(app.id, { hostname });
      await ctx.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    }
    const all: string[] = [];
    for (let after = ''; ;) {
      const page = await ctx.store.run((r) => r.edgeReads.liveHostnames(after, 2));
      all.push(...page);
      if (page.length < 2) break;
      after = page[page.length - 1]!;
    }
    expect(all.filter((n) => n.endsWith('.page.example'))).toEqual(names);
    expect(all).toEqual([...all].sort());

    await ctx.store.run((r) => r.acmeChallenges.save({ token: 'tok-1', hostname: names[0]!, keyAuthorization: 'tok-1.thumb', createdAt: new Date() }));
    const challenges = await ctx.store.run((r) => r.acmeChallenges.keyAuthorizations(10_000));
    expect(challenges.get('tok-1')).toBe('tok-1.thumb');
    expect(challenges.has('tok-2')).toBe(false);
  });

  it('reads a write whose commit comes after later writes were read, once, when it commits', async () => {
    const reader = await createDataStore({ url: ctx.db.url, readOnly: true });
    try {
      const app = await newApplication();
      const other = await newApplication();
      const start = (await changes(null, reader)).snapshot;
      let commit: () => void = () => undefined;
      let wrote: () => void = () => undefined;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      const holding = ctx.store.transaction(async (r) => {
        await r.applications.update(app.id, { status: 'suspended' });
        wrote();
        await new Promise<void>((resolve) => (commit = resolve));
      });
      await written;
      let last = await changes(start, reader);
      expect(last.changes).toEqual([]);
      if (ctx.store.kind === 'postgres') {
        // Writers side by side (PostgreSQL): a later one commits first and is read at once, then reads go on.
        const second = await ctx.openAnother();
        const domain = aDomain(other.id);
        await second.run((r) => r.domains.insert(domain, checksFor(domain.id)));
        last = await changes(last.snapshot, reader);
        expect(keysOf(last.changes)).toEqual([`domain:${domain.hostname}:live`]);
        for (let i = 0; i < 3; i += 1) {
          last = await changes(last.snapshot, reader);
          expect(last.changes).toEqual([]);
        }
      }
      commit();
      await holding;
      const after = await changes(last.snapshot, reader);
      expect(keysOf(after.changes)).toEqual([`application:${app.id}`]);
      expect((await changes(after.snapshot, reader)).changes).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  it('leaves out a stamp past the read\'s own snapshot (rows copied from another database)', async () => {
    const app = await newApplication();
    const domain = aDomain(app.id);
    await ctx.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    const start = (await changes(null)).snapshot;
    const column = ctx.store.kind === 'postgres' ? "changed_xid = '900000000000'" : 'changed_seq = 900000000000';
    await execSql(ctx.db.url, [`UPDATE domains SET ${column} WHERE id = '${domain.id}'`]);
    expect((await changes(start)).changes).toEqual([]);
  });

  it('gives the feed a read-only store of its own: it reads beside the others and refuses to write', async () => {
    const reader = await createDataStore({ url: ctx.db.url, readOnly: true, poolSize: 1 });
    try {
      expect((await changes(null, reader)).changes).toEqual([]);
      await expect(reader.run((r) => r.applications.insert(anApplication()))).rejects.toThrow(/read-only|readonly/);
    } finally {
      await reader.close();
    }
    if (ctx.store.kind === 'sqlite') await expect(createDataStore({ url: 'sqlite::memory:', readOnly: true })).rejects.toThrow(/database file/);
  });
});
