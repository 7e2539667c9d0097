// Plain SQL beside the data store, as another process (or another version's
// migration) would write: for states no repository method produces on its own.
import Database from 'better-sqlite3';
import { withClient } from './test-database';

/** Runs `statements` in order on the database at `databaseUrl` (postgres://… or sqlite:…). */
export async function execSql(databaseUrl: string, statements: readonly string[]): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const file = new Database(databaseUrl.slice('sqlite:'.length));
    try {
      for (const sql of statements) file.exec(sql);
    } finally {
      file.close();
    }
    return;
  }
  await withClient(databaseUrl, async (client) => {
    for (const sql of statements) await client.query(sql);
  });
}
