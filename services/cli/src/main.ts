// cdctl: host-side commands that speak to the database. Exit codes: 0 ok, 1 failed, 2 usage.
import { Command, CommanderError } from 'commander';
import { loadDatabaseUrl } from '@cds/config';
import { createDataStore } from '@cds/data';

async function migrate(): Promise<void> {
  const store = await createDataStore({ url: loadDatabaseUrl() });
  try {
    const applied = await store.migrate();
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database schema is current');
  } finally {
    await store.close();
  }
}

const program = new Command('cdctl')
  .description('Custom Domain Service command line')
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

program
  .command('migrate')
  .description('apply pending database migrations (DATABASE_URL)')
  .action(migrate);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  console.error(`cdctl: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
