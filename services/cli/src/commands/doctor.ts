import { Option, type Command } from 'commander';
import { errorMessage } from '@cds/core';
import { brokerConnection, cliDefaultMode, databaseConnection, loadConfigSubset, loadDataEncryptionKeysIfSet, MODES, type Mode } from '@cds/config';
import type { DataStore } from '@cds/data';
import type { DoctorReport } from '@cds/diagnostics';
import { EXIT_CODES } from '../cli-errors';
import { openExistingStore } from '../open-store';
import { printTable, show } from '../output';

const DOCTOR_SETTINGS = ['databaseUrl', 'databaseCaBundle', 'amqpUrl', 'amqpCaBundle', 'certIssuer', 'acmeDirectories', 'acmeCaBundle', 'dnsServers', 'edgeTarget'] as const;

async function diagnose(mode: Mode): Promise<{ report: DoctorReport; failing: boolean }> {
  // Loaded here, not at start-up: the API shortcuts never need the broker and database libraries.
  const { CHECK_NAMES, DOCTOR_STATUSES, FINDING_STATUSES, runDoctor } = await import('@cds/diagnostics');
  const config = { ...loadConfigSubset(DOCTOR_SETTINGS, { mode }), dataEncryptionKeys: loadDataEncryptionKeysIfSet(mode) };
  const started = performance.now();
  let store: DataStore;
  try {
    store = await openExistingStore(databaseConnection(config));
  } catch (error) {
    // Nothing else can be judged without the database: report that one check.
    const message = `cannot open the database: ${errorMessage(error)}`;
    const check = { name: CHECK_NAMES.database, status: FINDING_STATUSES.fail, message, duration_ms: Math.round(performance.now() - started) };
    return { report: { status: DOCTOR_STATUSES.failing, checks: [check] }, failing: true };
  }
  try {
    const report = await runDoctor({ config, store, amqpUrl: config.amqpUrl, amqpCa: brokerConnection(config)?.ca });
    return { report, failing: report.status === DOCTOR_STATUSES.failing };
  } finally {
    await store.close();
  }
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check the database, migrations, sealed values, broker and queues, outbox, ACME directory, DNS, certificates and clocks')
    .option('--json', 'print the report as JSON (the body of GET /operator/v1/doctor)')
    .addOption(
      new Option('--mode <mode>', 'whose defaults apply to unset variables (default: split when AMQP_URL is set, else all-in-one)').choices(MODES),
    )
    .addHelpText('after', '\nReads the service variables (DATABASE_URL, DATABASE_CA_BUNDLE, AMQP_URL, AMQP_CA_BUNDLE,\nCERT_ISSUER, ACME_DIRECTORY_URL, ACME_CA_BUNDLE, DNS_SERVERS, EDGE_TARGET,\nDATA_ENCRYPTION_KEYS or DATA_ENCRYPTION_KEY) like the services do. Exit status: 0 ok or degraded, 1 failing, 2 usage.')
    .action(async (options: { json?: boolean; mode?: Mode }) => {
      const { report, failing } = await diagnose(options.mode ?? cliDefaultMode());
      show(options.json === true, report, () => {
        printTable(report.checks.map((check) => ({ ...check, duration: `${check.duration_ms} ms` })), ['name', 'status', 'duration', 'message']);
        console.log(`\nstatus: ${report.status}`);
      });
      if (failing) process.exitCode = EXIT_CODES.failed;
    });
}
