import type { Command } from 'commander';
import { loadDatabaseConnection } from '@cds/config';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (reads DATABASE_URL); run it before starting new versions in split mode')
    .action(async () => {
      const { createDataStore } = await import('@cds/data');
      const store = await createDataStore(loadDatabaseConnection());
      try {
        const applied = await store.migrate();
        console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database schema is current');
      } finally {
        await store.close();
      }
    });
}
