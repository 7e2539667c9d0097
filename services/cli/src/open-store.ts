import { existsSync } from 'node:fs';
import type { Connection } from '@cds/config';
import { parseDatabaseUrl } from '@cds/core';
import type { DataStore } from '@cds/data';
import { UsageError } from './cli-errors';

/** Opens an existing database; a SQLite file that does not exist is an error, not a new empty database. */
export async function openExistingStore(database: Connection): Promise<DataStore> {
  const target = parseDatabaseUrl(database.url);
  if (target.kind === 'sqlite' && target.path !== ':memory:' && !existsSync(target.path)) {
    throw new UsageError(`the SQLite database ${target.path} does not exist: check DATABASE_URL and the working directory`);
  }
  // Loaded here, not at start-up: the API shortcuts never need TypeORM.
  const { createDataStore } = await import('@cds/data');
  return createDataStore(database);
}
