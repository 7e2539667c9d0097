import { setTimeout as sleep } from 'node:timers/promises';
import { ROUTING_KEYS } from '@cds/core';
import { createDataStore, NestedUnitOfWorkError, type ApplicationRow, type DataStore, type Repositories } from '@cds/data';
import { withClient } from '../../support/test-database';
import { aDomain, anApplication, checksFor, openMigratedStore, type MigratedStore } from './data-fixtures';

/** The API's create: one registration, admitted only below the limit. */
async function createWithinLimit(r: Repositories, app: ApplicationRow, limit: number): Promise<boolean> {
  const domain = aDomain(app.id);
  return (await r.domains.register(domain, checksFor(domain.id), { limit, messages: [] })).admitted;
}

describe('units of work', () => {
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

  it('commits a transaction and rolls every write back when it throws', async () => {
    const app = await newApplication();
    const kept = aDomain(app.id);
    const lost = aDomain(app.id);
    await ctx.store.transaction((r) => r.domains.insert(kept, checksFor(kept.id)));
    const failing = ctx.store.transaction(async (r) => {
      await r.domains.insert(lost, checksFor(lost.id));
      await r.outbox.add(ROUTING_KEYS.domainChanged, { domain_id: lost.id, hostname: lost.hostname, application_id: app.id, change: 'created' });
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    expect(await ctx.store.run((r) => r.domains.find(app.id, kept.id, false))).not.toBeNull();
    expect(await ctx.store.run((r) => r.domains.find(app.id, lost.id, true))).toBeNull();
    expect(await ctx.store.run((r) => r.domains.checksOf([lost.id]))).toEqual([]);
    expect(await ctx.store.run((r) => r.outbox.all(ROUTING_KEYS.domainChanged))).toEqual([]);
  });

  it('does not let a failing transaction undo a concurrent one', async () => {
    const app = await newApplication();
    // The pauses interleave the three units of work: the order of their steps is the scenario.
    const a = aDomain(app.id);
    const b = aDomain(app.id);
    const results = await Promise.allSettled([
      ctx.store.transaction(async (r) => {
        await r.domains.insert(a, checksFor(a.id));
        await sleep(20);
        throw new Error('fail a');
      }),
      ctx.store.transaction(async (r) => {
        await sleep(5);
        await r.domains.insert(b, checksFor(b.id));
      }),
      ctx.store.run(async (r) => {
        await sleep(10);
        await r.settings.set('written-meanwhile', 'yes');
      }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect((await ctx.store.run((r) => r.domains.listLive(app.id))).map((d) => d.id)).toEqual([b.id]);
    expect(await ctx.store.run((r) => r.settings.get('written-meanwhile'))).toBe('yes');
  });

  it('creates exactly 25 of 50 concurrent domains against a limit of 25, and counts them', async () => {
    const app = await newApplication();
    const admitted = await Promise.all(Array.from({ length: 50 }, () => ctx.store.run((r) => createWithinLimit(r, app, 25))));
    expect(admitted.filter(Boolean)).toHaveLength(25);
    expect(await ctx.store.run((r) => r.domains.countLive(app.id))).toBe(25);
    expect((await ctx.store.run((r) => r.applications.findById(app.id)))?.liveDomains).toBe(25);
  });

  it('holds the limit across stores opened on the same database, inside transactions too', async () => {
    const app = await newApplication();
    const stores: DataStore[] = [ctx.store, await ctx.openAnother()];
    const admitted = await Promise.all(Array.from({ length: 40 }, (_, i) => {
      const store = stores[i % 2]!;
      return i % 4 < 2 ? store.run((r) => createWithinLimit(r, app, 25)) : store.transaction((r) => createWithinLimit(r, app, 25));
    }));
    expect(admitted.filter(Boolean)).toHaveLength(25);
    expect(await ctx.store.run((r) => r.domains.countLive(app.id))).toBe(25);
    expect((await ctx.store.run((r) => r.applications.findById(app.id)))?.liveDomains).toBe(25);
  });

  it('SQLite refuses a unit of work started inside another one (it would wait for itself), but not after it ended; PostgreSQL runs it on another connection', async () => {
    const nestedInTransaction = ctx.store.transaction(() => ctx.store.run((r) => r.settings.get('x')));
    const nestedInRun = ctx.store.run(() => ctx.store.transaction((r) => r.settings.get('x')));
    if (ctx.store.kind === 'sqlite') {
      await expect(nestedInTransaction).rejects.toBeInstanceOf(NestedUnitOfWorkError);
      await expect(nestedInRun).rejects.toBeInstanceOf(NestedUnitOfWorkError);
    } else {
      await expect(nestedInTransaction).resolves.toBeNull();
      await expect(nestedInRun).resolves.toBeNull();
    }

    let later: Promise<string | null> | undefined;
    await ctx.store.run(async () => {
      later = sleep(10).then(() => ctx.store.run((r) => r.settings.get('x'))); // starts after the outer unit of work ended
    });
    await expect(later).resolves.toBeNull();
  });

  it('runs transactions at READ COMMITTED where the database and the URL ask for SERIALIZABLE: crossed reads and writes both commit', async () => {
    const { url, kind } = ctx.db;
    let store: DataStore;
    if (kind === 'postgres') {
      await withClient(url, (admin) => admin.query(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET default_transaction_isolation = 'serializable'`));
      // The premise: a plain new connection now starts its transactions SERIALIZABLE.
      const isolation = await withClient(url, async (plain) => (await plain.query('SHOW default_transaction_isolation')).rows[0].default_transaction_isolation);
      expect(isolation).toBe('serializable');
      // The operator's own startup options in the URL are kept, beside the data layer's.
      const withOptions = new URL(url);
      withOptions.searchParams.set('options', '-c default_transaction_isolation=serializable -c application_name=cds-url-options');
      store = await createDataStore({ url: withOptions.toString(), poolSize: 2 });
    } else {
      store = await ctx.openAnother();
    }
    try {
      await store.run(async (r) => {
        await r.settings.set('crossed-a', '0');
        await r.settings.set('crossed-b', '0');
      });
      // Each reads the key the other writes, both before either writes: SERIALIZABLE would refuse one (write skew).
      const crossed = (read: string, write: string) => store.transaction(async (r) => {
        const seen = await r.settings.get(read);
        await sleep(50); // both read before either writes: the overlap is the scenario
        await r.settings.set(write, `saw ${read}=${seen}`);
      });
      const results = await Promise.allSettled([crossed('crossed-a', 'crossed-b'), crossed('crossed-b', 'crossed-a')]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
      if (kind === 'postgres') {
        const named = await withClient(url, async (admin) => (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'cds-url-options'")).rows[0].n);
        expect(named).toBeGreaterThan(0);
      }
    } finally {
      if (kind === 'postgres') await store.close();
    }
  });

  it('answers ping', async () => {
    await expect(ctx.store.ping()).resolves.toBeUndefined();
  });
});
