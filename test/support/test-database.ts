import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export type TestDatabaseKind = 'postgres' | 'sqlite';

export interface TestDatabase {
  url: string;
  kind: TestDatabaseKind;
  /** Removes the database (PostgreSQL: closes its connections first). */
  drop(): Promise<void>;
}

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';

function kindFromEnv(): TestDatabaseKind {
  const kind = process.env.TEST_DATABASE ?? 'sqlite';
  if (kind !== 'postgres' && kind !== 'sqlite') throw new Error(`TEST_DATABASE must be postgres or sqlite (got ${kind}).`);
  return kind;
}

/** `work` on a plain pg connection to `url`, closed afterwards. */
export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const withAdmin = (work: (client: Client) => Promise<void>) => withClient(ADMIN_URL, work);

/** A throwaway empty database: `cds_test_<random>` on the local PostgreSQL, or a SQLite file under a new temp directory. */
export async function createTestDatabase(kind: TestDatabaseKind = kindFromEnv()): Promise<TestDatabase> {
  const name = `cds_test_${randomBytes(6).toString('hex')}`;
  if (kind === 'sqlite') {
    // The directory does not exist yet: the data store creates it.
    const dir = join(tmpdir(), name);
    return { kind, url: `sqlite:${join(dir, 'data.sqlite')}`, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}`).then(() => undefined));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    drop: () =>
      withAdmin(async (admin) => {
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      }),
  };
}
