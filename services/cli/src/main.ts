// cdctl: host-side commands over the database (migrate, doctor, operator
// reset-token) and shortcuts to the operator API. Exit codes: 0 ok, 1 a failed
// check or request, 2 usage.
import { Command, CommanderError } from 'commander';
import { errorMessage } from '@cds/core';
import { ConfigError } from '@cds/config';
import { EXIT_CODES, RequestFailedError, UsageError } from './cli-errors';
import { registerApp } from './commands/app';
import { registerAssertionKey } from './commands/assertion-key';
import { registerCertificate } from './commands/certificate';
import { registerCredential } from './commands/credential';
import { registerDoctor } from './commands/doctor';
import { registerDomain } from './commands/domain';
import { registerMigrate } from './commands/migrate';
import { registerOperator } from './commands/operator';
import { registerOrigin } from './commands/origin';
import { registerRekey } from './commands/rekey';
import { registerTraffic } from './commands/traffic';

const EXAMPLES = `
Examples:
  cdctl migrate
  cdctl doctor --json
  cdctl app create shop --name "Shop builder"
  cdctl credential issue shop
  cdctl origin add shop http://shop-origin.internal:8080 --health-path /healthz
  cdctl domain show shop.customer.example
  cdctl certificate renew --all --issuer internal

Exit status: 0 ok, 1 failed check or request, 2 usage.`;

function buildProgram(): Command {
  const program = new Command('cdctl')
    .description('Custom Domain Service command line')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXAMPLES);
  // Sub-commands created from here on inherit exitOverride and the output settings.
  registerMigrate(program);
  registerDoctor(program);
  registerRekey(program);
  registerOperator(program);
  registerApp(program);
  registerCredential(program);
  registerOrigin(program);
  registerAssertionKey(program);
  registerTraffic(program);
  registerDomain(program);
  registerCertificate(program);
  return program;
}

function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage; // commander printed it
  if (error instanceof UsageError || error instanceof ConfigError) {
    process.stderr.write(`cdctl: ${error.message}\n`);
    return EXIT_CODES.usage;
  }
  if (error instanceof RequestFailedError) {
    const details = Object.keys(error.details).length > 0 ? `\n  details: ${JSON.stringify(error.details)}` : '';
    process.stderr.write(`cdctl: ${error.code}: ${error.message}${details}\n`);
    return EXIT_CODES.failed;
  }
  process.stderr.write(`cdctl: ${errorMessage(error)}\n`);
  return EXIT_CODES.failed;
}

buildProgram()
  .parseAsync(process.argv)
  .then(
    () => process.exit(process.exitCode ?? EXIT_CODES.ok),
    (error: unknown) => process.exit(exitCodeOf(error)),
  );
