import { Client } from 'pg';
import { postgresConnection } from '@cds/data';

/** Advisory lock key of the backup ("cds" + 1; migrations hold "cds" + 0). */
const BACKUP_LOCK_KEY = 0x63647301;

/**
 * One backup at a time across every API replica: a PostgreSQL session advisory
 * lock held on a connection of its own for the dump's duration. Resolves null
 * when another process holds it; the returned release ends that session.
 */
export async function tryBackupLock(databaseUrl: string, ca?: string): Promise<(() => Promise<void>) | null> {
  // TLS as the data store connects (sslmode, DATABASE_CA_BUNDLE's certificates).
  const { url, ssl } = postgresConnection(databaseUrl, ca);
  const client = new Client({ connectionString: url, ...(ssl === undefined ? {} : { ssl }) });
  client.on('error', () => undefined); // a dropped session frees the lock; the dump reports its own failure
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [BACKUP_LOCK_KEY]);
    if (rows[0]?.locked === true) return () => client.end().catch(() => undefined);
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  await client.end().catch(() => undefined);
  return null;
}
