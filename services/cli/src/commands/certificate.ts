import type { Command } from 'commander';
import { UsageError } from '../cli-errors';
import { clientFor, withApiOptions, type ApiOptions } from '../api-options';
import { show } from '../output';

/** POST /operator/v1/certificates/renew's answer. */
interface RenewalResult {
  marked: number;
  /** Sorted; the first 100 when more were marked. */
  hostnames: string[];
}

interface RenewOptions extends ApiOptions {
  all?: boolean;
  issuer?: string;
  directory?: string;
}

/** The request body of the arguments given; a usage error when they do not name one hostname or --all. */
function renewalBody(hostname: string | undefined, options: RenewOptions): Record<string, unknown> {
  if (hostname !== undefined) {
    if (options.all || options.issuer !== undefined || options.directory !== undefined) throw new UsageError('give a hostname, or --all with --issuer and --directory, not both');
    return { hostname };
  }
  if (!options.all) throw new UsageError('give a hostname, or --all (with --issuer internal|acme or --directory URL to narrow it)');
  return { all: true, ...(options.issuer !== undefined ? { issuer: options.issuer } : {}), ...(options.directory !== undefined ? { directory_url: options.directory } : {}) };
}

function printRenewal(result: RenewalResult): void {
  process.stdout.write(`${result.marked} certificate${result.marked === 1 ? '' : 's'} marked for re-issue at the next check of their domain (paced by the ACME order budget)\n`);
  for (const hostname of result.hostnames) process.stdout.write(`  ${hostname}\n`);
  if (result.marked > result.hostnames.length) process.stdout.write(`  ... and ${result.marked - result.hostnames.length} more\n`);
}

export function registerCertificate(program: Command): void {
  const certificate = program.command('certificate').description('certificates the checker issues: renew');

  withApiOptions(certificate.command('renew [hostname]'))
    .description('issue certificates again: one hostname\'s, or all (of one issuer, of one ACME directory); the old ones serve until the new ones are stored')
    .option('--all', 'every live domain\'s certificate')
    .option('--issuer <issuer>', 'with --all: only certificates of this issuer (internal or acme)')
    .option('--directory <url>', 'with --all: only certificates issued by this ACME directory')
    .action(async (hostname: string | undefined, options: RenewOptions) => {
      const body = renewalBody(hostname, options);
      const result = await clientFor(options).request<RenewalResult>('POST', '/operator/v1/certificates/renew', { body });
      show(options.json === true, result, () => printRenewal(result));
    });
}
