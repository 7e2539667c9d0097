// What the edges read: one hostname's route in one query, the change feed
// (changed_at written by the database, only when something served changes),
// live hostnames by page and ACME tokens in batches.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApplicationRow, EdgeChange } from '@cds/data';
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

  const changes = (since: Date | null) => ctx.store.run((r) => r.edgeReads.changesSince(since));
  /**
   * Until the database's clock is past `t`: a write in the same millisecond as a read (SQLite's
   * clock has milliseconds) would count as at the read, not after it. The edges' cursor reads
   * 10 s back, so they never depend on this; these exact-cursor tests do.
   */
  const clockPast = async (t: Date) => {
    while ((await changes(null)).readAt.getTime() <= t.getTime()) await sleep(1);
  };
  const keysOf = (list: EdgeChange[]) => list.map((c) => `${c.kind}:${c.key}${c.live === undefined ? '' : c.live ? ':live' : ':gone'}`).sort();

  it('reads a live domain with its application (status included) and active origin in one query', async () => {
    const app = await newApplication({ status: 'suspended' });
    const domain = aDomain(app.id, { status: 'ready' });
    await ctx.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    expect(await ctx.store.run((r) => r.edgeReads.route(domain.hostname))).toEqual({
      domainId: domain.id, hostname: domain.hostname, reference: domain.reference, status: 'ready',
      applicationId: app.id, slug: app.slug, applicationStatus: 'suspended', limits: app.limits, originUrl: 'http://origin.test',
    });
    expect(await ctx.store.run((r) => r.edgeReads.route('nobody.example'))).toBeNull();
    await ctx.store.run((r) => r.domains.markDeleted(app.id, domain.id, new Date()));
    expect(await ctx.store.run((r) => r.edgeReads.route(domain.hostname))).toBeNull();
  });

  it('feeds what changed since a database time: first the clock alone, then inserts and the changes the edge serves from', async () => {
    const first = await changes(null);
    expect(first.changes).toEqual([]);
    const since = first.readAt;
    await clockPast(since);
    const app = await newApplication();
    const domain = aDomain(app.id, { status: 'pending_dns' });
    await ctx.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    const created = await changes(since);
    expect(created.readAt.getTime()).toBeGreaterThanOrEqual(since.getTime());
    expect(keysOf(created.changes)).toEqual([`application:${app.id}`, `domain:${domain.hostname}:live`, `origin:${app.id}`]);

    // A write that changes nothing served (the next check's time) is not fed; a status change is, whoever's clock wrote updated_at.
    const quiet = created.readAt;
    await clockPast(quiet);
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
    const since = (await changes(null)).readAt;
    await clockPast(since);
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
    expect(await ctx.store.run((r) => r.edgeReads.challenges(['tok-1', 'tok-2']))).toEqual(new Map([['tok-1', 'tok-1.thumb']]));
    expect(await ctx.store.run((r) => r.edgeReads.challenges([]))).toEqual(new Map());
  });
});
