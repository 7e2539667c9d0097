import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { createDataStore, declaredConcurrentIndexes, type DataStore } from '@cds/data';
import { silentLogger } from '@cds/logging';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { aCredential, anApplication } from './data-fixtures';

const INITIAL = 'InitialSchema1760000000000';

describe('data store migrations', () => {
  let db: TestDatabase;
  let store: DataStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createDataStore({ url: db.url });
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('migrates up, down and up again', async () => {
    const all = await store.pendingMigrations();
    expect(all[0]).toBe(INITIAL);
    expect(new Set(all).size).toBe(all.length);
    expect(await store.migrate()).toEqual(all);
    expect(await store.pendingMigrations()).toEqual([]);
    expect(await store.migrate()).toEqual([]);
    await store.run((r) => r.settings.set('probe', 'before'));

    for (const name of [...all].reverse()) expect(await store.revertLastMigration()).toBe(name);
    expect(await store.pendingMigrations()).toEqual(all);
    // Matched by message: better-sqlite3 may raise errors built in another test file's realm, which toThrow() does not recognize.
    await expect(store.run((r) => r.settings.get('probe'))).rejects.toMatchObject({ message: expect.stringMatching(/settings/) });
    expect(await store.revertLastMigration()).toBeNull();

    expect(await store.migrate()).toEqual(all);
    expect(await store.run((r) => r.settings.get('probe'))).toBeNull();
    await store.run((r) => r.settings.set('probe', 'after'));
    expect(await store.run((r) => r.settings.get('probe'))).toBe('after');
  });

  it('applies a migration once when several stores migrate at the same time', async () => {
    const fresh = await createTestDatabase();
    const logged: string[] = [];
    const logger = { ...silentLogger, info: (msg: string, meta?: object) => logged.push(`${msg} ${JSON.stringify(meta)}`) };
    const stores = await Promise.all([1, 2, 3].map(() => createDataStore({ url: fresh.url, logger })));
    try {
      const all = await stores[0]!.pendingMigrations();
      const applied = await Promise.all(stores.map((s) => s.migrate()));
      expect(applied.flat()).toEqual(all);
      expect(logged.filter((line) => line.startsWith('database migration applied'))).toEqual(all.map((name) => `database migration applied {"migration":"${name}"}`));
      // PostgreSQL builds the declared indexes after the run, each once whoever builds it.
      const built = logged.filter((line) => line.startsWith('database index built')).map((line) => (JSON.parse(line.slice('database index built '.length)) as { index: string }).index);
      expect(built).toEqual(fresh.kind === 'postgres' ? declaredConcurrentIndexes().map((index) => index.name) : []);
      for (const s of stores) expect(await s.pendingMigrations()).toEqual([]);
    } finally {
      for (const s of stores) await s.close();
      await fresh.drop();
    }
  });

  it('enforces foreign keys', async () => {
    await expect(store.run((r) => r.credentials.insert(aCredential(randomUUID())))).rejects.toMatchObject({ message: expect.stringMatching(/foreign key/i) });
    const app = anApplication();
    await store.run((r) => r.applications.insert(app));
    await store.run((r) => r.credentials.insert(aCredential(app.id)));
    expect(await store.run((r) => r.credentials.list(app.id))).toHaveLength(1);
  });

  it('answers ping and closes twice without error', async () => {
    const other = await createDataStore({ url: db.url });
    await expect(other.ping()).resolves.toBeUndefined();
    await other.close();
    await expect(other.close()).resolves.toBeUndefined();
  });

  it('refuses an unknown database URL', async () => {
    await expect(createDataStore({ url: 'mysql://localhost/x' })).rejects.toThrow(/postgres/);
    await expect(createDataStore({ url: 'sqlite:' })).rejects.toThrow(/sqlite/);
  });

  if ((process.env.TEST_DATABASE ?? 'sqlite') === 'sqlite') {
    it('creates the SQLite file in a new directory, in WAL mode', () => {
      const file = db.url.slice('sqlite:'.length);
      expect(existsSync(file)).toBe(true);
      const raw = new Database(file, { readonly: true });
      try {
        expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        raw.close();
      }
    });
  }
});
