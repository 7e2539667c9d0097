import type { Command } from 'commander';
import { loadDatabaseConnection } from '@cds/config';
import { openExistingStore } from '../open-store';

export function registerOperator(program: Command): void {
  const operator = program.command('operator').description('host-side operator tasks (they need DATABASE_URL, not the API)');
  operator
    .command('reset-token')
    .description('forget the token set with PUT /operator/v1/token, so the configured OPERATOR_TOKEN is valid again')
    .action(async () => {
      const { OPERATOR_TOKEN_SETTING } = await import('@cds/core');
      const store = await openExistingStore(loadDatabaseConnection());
      try {
        const removed = await store.transaction(async (r) => {
          const present = (await r.settings.get(OPERATOR_TOKEN_SETTING)) !== null;
          if (present) await r.settings.delete(OPERATOR_TOKEN_SETTING);
          return present;
        });
        console.log(
          removed
            ? 'the token set through the API is removed: the configured OPERATOR_TOKEN is valid again on every instance'
            : 'no token was set through the API: the configured OPERATOR_TOKEN is already the valid one',
        );
      } finally {
        await store.close();
      }
    });
}
