// The doctor's probes run on any schema: tables of later versions may be absent.
// The same reads feed the database gauges (libs/metrics, watchDatabase).
import Database from 'better-sqlite3';
import { createDataStore, type DataStore } from '@cds/data';
import { createTestDatabase, withClient, type TestDatabase } from '../../support/test-database';
import { aDomain, anApplication, checksFor, openMigratedStore, type MigratedStore } from './data-fixtures';

const DAY_MS = 86_400_000;

/** Raw statements beside the store, as another version's migration would run them. */
async function exec(db: TestDatabase, statements: string[]): Promise<void> {
  if (db.kind === 'postgres') {
    await withClient(db.url, async (client) => {
      for (const sql of statements) await client.query(sql);
    });
    return;
  }
  const file = new Database(db.url.slice('sqlite:'.length));
  try {
    for (const sql of statements) file.exec(sql);
  } finally {
    file.close();
  }
}

/** A timestamp literal both databases read as UTC. */
function literal(db: TestDatabase, at: Date): string {
  const text = at.toISOString().replace('T', ' ').replace('Z', '');
  return db.kind === 'postgres' ? `'${text}+00'` : `'${text}'`;
}

describe('diagnostics repository', () => {
  let db: TestDatabase;
  let store: DataStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createDataStore({ url: db.url });
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("reads the database's clock", async () => {
    const before = Date.now();
    const now = await store.run((r) => r.diagnostics.now());
    expect(now.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(now.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('reports null while the certificate and delivery tables do not exist', async () => {
    expect(await store.run((r) => r.diagnostics.certificatesExpiringBefore(new Date()))).toBeNull();
    expect(await store.run((r) => r.diagnostics.webhookBacklog())).toBeNull();
    expect(await store.run((r) => r.diagnostics.domainsConfirming())).toBeNull();
  });

  it('reports null for domains confirming until domain_checks has its failed_runs column', async () => {
    await exec(db, [
      'CREATE TABLE domains (id varchar(36) PRIMARY KEY, status varchar(32) NOT NULL, deleted_at varchar(32))',
      'CREATE TABLE domain_checks (domain_id varchar(36) NOT NULL, type varchar(16) NOT NULL)',
    ]);
    expect(await store.run((r) => r.diagnostics.domainsConfirming())).toBeNull();
    await exec(db, ['ALTER TABLE domain_checks ADD COLUMN failed_runs integer NOT NULL DEFAULT 0']);
    expect(await store.run((r) => r.diagnostics.domainsConfirming())).toBe(0);
  });

  it('counts certificates expiring soon and pending deliveries once the tables exist', async () => {
    const now = new Date();
    const ts = db.kind === 'postgres' ? 'timestamptz' : 'datetime';
    await exec(db, [
      `CREATE TABLE certificates (id integer PRIMARY KEY, not_after ${ts} NOT NULL)`,
      `INSERT INTO certificates (id, not_after) VALUES (1, ${literal(db, new Date(now.getTime() + 5 * DAY_MS))}), (2, ${literal(db, new Date(now.getTime() + 60 * DAY_MS))})`,
      `CREATE TABLE webhook_deliveries (id integer PRIMARY KEY, state varchar NOT NULL, next_attempt_at ${ts})`,
      `INSERT INTO webhook_deliveries (id, state, next_attempt_at) VALUES
         (1, 'pending', ${literal(db, new Date(now.getTime() - 300_000))}),
         (2, 'pending', ${literal(db, new Date(now.getTime() + 3_600_000))}),
         (3, 'delivered', ${literal(db, new Date(now.getTime() - 7_200_000))})`,
    ]);
    expect(await store.run((r) => r.diagnostics.certificatesExpiringBefore(new Date(now.getTime() + 14 * DAY_MS)))).toBe(1);
    expect(await store.run((r) => r.diagnostics.certificatesExpiringBefore(new Date(now.getTime() + 90 * DAY_MS)))).toBe(2);
    const backlog = await store.run((r) => r.diagnostics.webhookBacklog());
    expect(backlog?.pending).toBe(2);
    expect(Math.abs((backlog?.oldestDueAt?.getTime() ?? 0) - (now.getTime() - 300_000))).toBeLessThan(2);
  });
});

describe('diagnostics repository: ready domains confirming a failure (DECISIONS §11)', () => {
  let ctx: MigratedStore;

  beforeAll(async () => {
    ctx = await openMigratedStore();
  });
  afterAll(() => ctx?.close());

  /** A domain with its four checks; `failedRuns` sets the streak of some of them, as the checker writes it. */
  async function domainWith(applicationId: string, status: 'pending_dns' | 'ready' | 'attention_required', failedRuns: Partial<Record<'ownership' | 'routing' | 'certificate' | 'origin', number>>): Promise<string> {
    const domain = aDomain(applicationId, { status });
    await ctx.store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
    const since = literal(ctx.db, new Date());
    await exec(ctx.db, Object.entries(failedRuns).map(([type, runs]) =>
      `UPDATE domain_checks SET failed_runs = ${runs}, failing_since = ${since} WHERE domain_id = '${domain.id}' AND type = '${type}'`));
    return domain.id;
  }

  const confirming = () => ctx.store.run((r) => r.diagnostics.domainsConfirming());

  it('is 0 without streaks', async () => {
    expect(await confirming()).toBe(0);
  });

  it('counts each ready domain with a streak once, whatever its number of failing checks', async () => {
    const app = anApplication();
    await ctx.store.run((r) => r.applications.insert(app));
    await domainWith(app.id, 'ready', { routing: 2, origin: 1 });
    await domainWith(app.id, 'ready', { origin: 4 });
    await domainWith(app.id, 'ready', {});
    // Not served, or no longer ready: a streak left on them is not a confirmation in progress.
    await domainWith(app.id, 'pending_dns', { ownership: 1 });
    await domainWith(app.id, 'attention_required', { origin: 3 });
    const deleted = await domainWith(app.id, 'ready', { ownership: 1 });
    expect(await confirming()).toBe(3);
    await exec(ctx.db, [`UPDATE domains SET deleted_at = ${literal(ctx.db, new Date())} WHERE id = '${deleted}'`]);
    expect(await confirming()).toBe(2);
  });
});
