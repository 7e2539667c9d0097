import { InvalidArgumentError, type Command } from 'commander';
import { cliDefaultMode, databaseConnection, loadConfigSubset } from '@cds/config';
import { EXIT_CODES } from '../cli-errors';
import { openExistingStore } from '../open-store';
import { printTable, show } from '../output';

/** Values per transaction: short transactions beside the running services. */
const REKEY_BATCH = 100;

function batchSize(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InvalidArgumentError('must be an integer from 1 to 10000');
  return n;
}

export function registerRekey(program: Command): void {
  program
    .command('rekey')
    .description('seal every stored private key and secret again with the first key of DATA_ENCRYPTION_KEYS (then the old key can go)')
    .option('--json', 'print the counts as JSON')
    .option('--batch <n>', 'values read and written per transaction', batchSize, REKEY_BATCH)
    .addHelpText(
      'after',
      '\nReads DATABASE_URL, DATABASE_CA_BUNDLE and DATA_ENCRYPTION_KEYS (or DATA_ENCRYPTION_KEY) like the services do.\n' +
        'Safe to run again and while the services run. A value that no configured key opens is named and left as it is;\n' +
        'the exit status is then 1. Exit status: 0 done, 1 some values left, 2 usage.',
    )
    .action(async (options: { json?: boolean; batch: number }) => {
      const config = loadConfigSubset(['databaseUrl', 'databaseCaBundle', 'dataEncryptionKey', 'dataEncryptionKeys'], { mode: cliDefaultMode() });
      const store = await openExistingStore(databaseConnection(config));
      try {
        // Loaded here, not at start-up: the API shortcuts never need TypeORM.
        const { rekeySealedValues } = await import('../rekey');
        const result = await rekeySealedValues(store, config.dataEncryptionKeys, options.batch);
        show(options.json === true, result, () => {
          printTable(result.counts.map((count) => ({ ...count })), ['kind', 'resealed', 'current', 'unopened', 'changed']);
          for (const failure of result.failures) console.log(`not opened: ${failure}`);
        });
        if (result.failures.length > 0) {
          process.stderr.write(`${result.failures.length} sealed value(s) open with no configured key; they were left as they are\n`);
          process.exitCode = EXIT_CODES.failed;
        }
      } finally {
        await store.close();
      }
    });
}
