// Indexes on tables that grow with the deployment: PostgreSQL builds them after
// the migration run with CREATE INDEX CONCURRENTLY, so writes to the table go
// on during the build; an invalid index (a build that failed) is built again;
// a second migrator waiting meanwhile neither builds twice nor deadlocks with
// the build. SQLite builds them inside the migrations.
import Database from 'better-sqlite3';
import { createDataStore, declaredConcurrentIndexes, type DataStore } from '@cds/data';
import { silentLogger } from '@cds/logging';
import { eventually } from '../../support/eventually';
import { createTestDatabase, withClient, type TestDatabase } from '../../support/test-database';
import { anApplication } from './data-fixtures';

const DECLARED = declaredConcurrentIndexes().map((index) => index.name);

async function validIndexes(url: string): Promise<string[]> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      'SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indisvalid AND c.relname = ANY($1) ORDER BY 1',
      [DECLARED],
    );
    return rows.map((row) => row.name);
  });
}

it('declares the indexes of the growing tables', () => {
  expect(DECLARED).toEqual(expect.arrayContaining(['ix_domains_application_live', 'ix_domain_checks_failing', 'ix_domains_changed_xid', 'ix_webhook_deliveries_subscription_due']));
  expect(new Set(DECLARED).size).toBe(DECLARED.length);
});

it('SQLite builds every declared index of both databases inside the migrations (changed_xid is PostgreSQL\'s)', async () => {
  const db = await createTestDatabase('sqlite');
  const store = await createDataStore({ url: db.url });
  try {
    await store.migrate();
    expect(await store.pendingIndexes()).toEqual([]);
    const file = new Database(db.url.slice('sqlite:'.length), { readonly: true });
    const names = (file.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as { name: string }[]).map((row) => row.name);
    file.close();
    expect(names).toEqual(expect.arrayContaining(DECLARED.filter((name) => !name.endsWith('_changed_xid'))));
  } finally {
    await store.close();
    await db.drop();
  }
});

describe('PostgreSQL', () => {
  let db: TestDatabase;
  let store: DataStore;
  const logged: string[] = [];
  const logger = { ...silentLogger, info: (msg: string, meta?: object) => logged.push(`${msg} ${JSON.stringify(meta)}`) };

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    store = await createDataStore({ url: db.url, logger });
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('builds every declared index, valid', async () => {
    expect(await validIndexes(db.url)).toEqual([...DECLARED].sort());
    expect(logged.filter((line) => line.startsWith('database index built'))).toHaveLength(DECLARED.length);
  });

  it('writes to the table go on while its index is built, and a second migrator waits without building it twice', async () => {
    const app = anApplication();
    await store.run((r) => r.applications.insert(app));
    await withClient(db.url, (c) => c.query('DROP INDEX ix_traffic_daily_day'));
    logged.length = 0;

    // A writer whose transaction is open: the concurrent build waits for it to end.
    await withClient(db.url, async (writer) => {
      await writer.query('BEGIN');
      await writer.query("INSERT INTO traffic_daily (application_id, day) VALUES ($1, '2026-01-01')", [app.id]);
      const other = await createDataStore({ url: db.url, logger });
      try {
        const runs = [store.migrate(), other.migrate()];
        await eventually('the index build waiting for the open writer', () =>
          withClient(db.url, async (c) => {
            const { rows } = await c.query("SELECT 1 FROM pg_stat_activity WHERE query LIKE 'CREATE INDEX CONCURRENTLY ix_traffic_daily_day%' AND wait_event_type = 'Lock'");
            return rows.length === 1;
          }),
        );
        // A plain CREATE INDEX would hold its SHARE lock request here, and this insert would queue behind it.
        const started = Date.now();
        await withClient(db.url, (c) => c.query("INSERT INTO traffic_daily (application_id, day) VALUES ($1, '2026-01-02')", [app.id]));
        expect(Date.now() - started).toBeLessThan(2_000);

        await writer.query('COMMIT');
        expect(await Promise.all(runs)).toEqual([[], []]);
      } finally {
        await other.close();
      }
    });
    expect(logged.filter((line) => line.startsWith('database index built'))).toEqual([expect.stringContaining('"index":"ix_traffic_daily_day"')]);
    expect(await validIndexes(db.url)).toContain('ix_traffic_daily_day');
    const { rows } = await withClient(db.url, (c) => c.query<{ n: string }>('SELECT count(*) AS n FROM traffic_daily'));
    expect(Number(rows[0]?.n)).toBe(2);
  });

  it('an invalid index, left by a build that failed, is dropped and built again', async () => {
    await withClient(db.url, (c) => c.query("UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'ix_domains_deleted'::regclass"));
    expect(await validIndexes(db.url)).not.toContain('ix_domains_deleted');
    // What the doctor's migrations check warns of.
    expect(await store.pendingIndexes()).toEqual(['ix_domains_deleted']);
    logged.length = 0;
    expect(await store.migrate()).toEqual([]);
    expect(await validIndexes(db.url)).toEqual([...DECLARED].sort());
    expect(logged).toEqual([expect.stringMatching(/^database index built \{"index":"ix_domains_deleted"/)]);
    expect(await store.pendingIndexes()).toEqual([]);
  });

  it('a run with every index valid builds nothing', async () => {
    logged.length = 0;
    expect(await store.migrate()).toEqual([]);
    expect(logged).toEqual([]);
  });
});
