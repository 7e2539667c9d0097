// Migrations through PgBouncer in transaction pooling mode, where consecutive
// statements of one client may run on different server connections: the
// migration lock must be held by the transaction that migrates. A session
// lock would be taken on one server connection and released on another, left
// held in the pool for good, and the next migrator would wait for it forever.
import { createDataStore, type DataStore } from '@cds/data';
import { startPgBouncer, type PgBouncer } from '../../support/pgbouncer';
import { createTestDatabase, withClient, type TestDatabase } from '../../support/test-database';

let bouncer: PgBouncer;
let db: TestDatabase;
const stores: DataStore[] = [];

beforeAll(async () => {
  // Two server connections for every client: the stores' statements take turns on them.
  bouncer = await startPgBouncer({ serverConnections: 2 });
  db = await createTestDatabase('postgres');
});

afterAll(async () => {
  for (const store of stores) await store.close();
  await bouncer?.stop();
  await db?.drop();
});

/** Advisory locks held in the test's database, whoever holds them (read directly, not through PgBouncer). */
async function advisoryLocks(): Promise<number> {
  const name = new URL(db.url).pathname.slice(1);
  return withClient(db.url, async (client) => {
    const { rows } = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND d.datname = $1", [name],
    );
    return Number(rows[0]?.n);
  });
}

it('applies each migration once when three stores migrate at once through PgBouncer, and leaves no lock behind', async () => {
  for (let i = 0; i < 3; i++) stores.push(await createDataStore({ url: bouncer.through(db.url), poolSize: 2 }));
  const [first, second, third] = stores as [DataStore, DataStore, DataStore];
  const all = await first.pendingMigrations();
  expect(all.length).toBeGreaterThan(5);

  const applied = await Promise.all(stores.map((store) => store.migrate()));
  expect(applied.flat()).toEqual(all);
  expect(await advisoryLocks()).toBe(0);
  for (const store of stores) expect(await store.pendingMigrations()).toEqual([]);

  // Again, one after the other: nothing to do, and no migrator waits for a lock left in the pool.
  expect(await second.migrate()).toEqual([]);
  expect(await third.migrate()).toEqual([]);
  const last = all[all.length - 1];
  expect(await first.revertLastMigration()).toBe(last);
  expect(await Promise.all([second.migrate(), third.migrate()])).toEqual(expect.arrayContaining([[last], []]));
  expect(await advisoryLocks()).toBe(0);
  expect(bouncer.log()).not.toMatch(/FATAL|unsupported startup parameter/);
});
