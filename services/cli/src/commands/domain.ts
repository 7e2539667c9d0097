import type { Command } from 'commander';
import { clientFor, pathSegment, withApiOptions, type ApiOptions } from '../api-options';
import { printRecord, printTable, show, type Row } from '../output';

interface SeenCheck {
  type: string;
  status: string;
  error_code: string | null;
  message: string | null;
}

/** GET /operator/v1/domains/{hostname}: the parts printed here (DECISIONS §15). */
interface DomainLookup {
  id: string;
  hostname: string;
  reference: string;
  status: string;
  application: string;
  dns_records: Row[];
  checks: Row[];
  metadata: Row;
  /** The hostname every request is redirected to (DECISIONS §12); null when unset. */
  redirect_to: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  certificate: Row | null;
  recent_runs: Array<{ started_at: string; duration_ms: number; trigger: string; checks: SeenCheck[]; status_before: string; status_after: string }>;
}

const CHECK_COLUMNS = ['type', 'status', 'error_code', 'observed_at', 'next_check_at', 'message'];
const RECORD_COLUMNS = ['type', 'name', 'value'];

/** A check as one run saw it, in a cell: `passing`, or `failing (txt_record_not_found)`. */
const seen = (check: SeenCheck) => (check.error_code ? `${check.status} (${check.error_code})` : check.status);

function heading(title: string): void {
  process.stdout.write(`\n${title}\n`);
}

function printLookup(domain: DomainLookup): void {
  const { hostname, id, application, reference, status, redirect_to, created_at, updated_at, deleted_at, metadata } = domain;
  printRecord({ hostname, id, application, reference, status, redirect_to, created_at, updated_at, deleted_at, metadata });
  heading('checks');
  printTable(domain.checks, CHECK_COLUMNS);
  heading('dns records');
  printTable(domain.dns_records, RECORD_COLUMNS);
  heading('certificate');
  if (domain.certificate) printRecord(domain.certificate);
  else process.stdout.write('(none)\n');
  heading('recent runs, newest first');
  const runs = domain.recent_runs.map((run) => ({
    started_at: run.started_at, duration_ms: run.duration_ms, trigger: run.trigger, status_before: run.status_before, status_after: run.status_after,
    ...Object.fromEntries(run.checks.map((check) => [check.type, seen(check)])),
  }));
  printTable(runs, ['started_at', 'duration_ms', 'trigger', 'status_before', 'status_after', ...domain.checks.map((check) => String(check.type))]);
}

export function registerDomain(program: Command): void {
  const domain = program.command('domain').description("a tenant's domain as the operator sees it: show");

  withApiOptions(domain.command('show <hostname>'))
    .description('show the domain of a hostname, whatever its application: its status, checks, DNS records, certificate and last check runs')
    .option('--include-deleted', 'when no domain of the hostname is live, show the one deleted last')
    .action(async (hostname: string, options: ApiOptions & { includeDeleted?: boolean }) => {
      const query = { include_deleted: options.includeDeleted ? 'true' : undefined };
      const found = await clientFor(options).request<DomainLookup>('GET', `/operator/v1/domains/${pathSegment(hostname)}`, { query });
      show(options.json === true, found, () => printLookup(found));
    });
}
