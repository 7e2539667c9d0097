import { existsSync } from 'node:fs';
import { parseDatabaseUrl } from '@cds/config';
import type { DataStore } from '@cds/data';
import { UsageError } from './cli-errors';

/** Opens an existing database; a SQLite file that does not exist is an error, not a new empty database. */
export async function openExistingStore(databaseUrl: string): Promise<DataStore> {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.kind === 'sqlite' && target.path !== ':memory:' && !existsSync(target.path)) {
    throw new UsageError(`the SQLite database ${target.path} does not exist: check DATABASE_URL and the working directory`);
  }
  // Loaded here, not at start-up: the API shortcuts never need TypeORM.
  const { createDataStore } = await import('@cds/data');
  return createDataStore({ url: databaseUrl });
}
