import { InvalidArgumentError, type Command } from 'commander';
import { clientFor, pathSegment, withApiOptions, type ApiOptions } from '../api-options';
import { printRecord, printTable, show, type Row } from '../output';

const APPS = '/operator/v1/applications';
const LIST_COLUMNS = ['slug', 'name', 'status', 'plan', 'live_domains', 'created_at'];

/** `--limit live_domains=50`, repeatable. */
function collectLimit(text: string, limits: Record<string, number> = {}): Record<string, number> {
  const match = /^([a-z_]+)=(\d+)$/.exec(text);
  if (!match) throw new InvalidArgumentError('expected name=number, such as live_domains=50');
  return { ...limits, [match[1] as string]: Number(match[2]) };
}

export function registerApp(program: Command): void {
  const app = program.command('app').description('applications (tenants): create, list, get, suspend, resume, delete');

  withApiOptions(app.command('create <slug>'))
    .description('create an application')
    .requiredOption('--name <name>', 'display name')
    .option('--contact-email <email>', 'contact e-mail (fair-use notices)')
    .option('--plan <plan>', 'plan (default: free)')
    .option('--limit <name=number>', 'override one limit of the plan (repeatable), e.g. live_domains=50', collectLimit)
    .action(async (slug: string, options: ApiOptions & { name: string; contactEmail?: string; plan?: string; limit?: Record<string, number> }) => {
      const body = {
        slug,
        name: options.name,
        ...(options.contactEmail ? { contact_email: options.contactEmail } : {}),
        ...(options.plan ? { plan: options.plan } : {}),
        ...(options.limit ? { limits: options.limit } : {}),
      };
      const created = await clientFor(options).request<Row>('POST', APPS, { body });
      show(options.json === true, created, () => printRecord(created));
    });

  withApiOptions(app.command('list'))
    .description('list applications, oldest first')
    .action(async (options: ApiOptions) => {
      const apps = await clientFor(options).request<Row[]>('GET', APPS);
      show(options.json === true, apps, () => printTable(apps, LIST_COLUMNS));
    });

  withApiOptions(app.command('get <slug>'))
    .description('show an application with its limits')
    .action(async (slug: string, options: ApiOptions) => {
      const found = await clientFor(options).request<Row>('GET', `${APPS}/${pathSegment(slug)}`);
      show(options.json === true, found, () => printRecord(found));
    });

  for (const [name, status, what] of [
    ['suspend', 'suspended', 'suspend an application: its credentials get 403 application_suspended'],
    ['resume', 'active', 'resume a suspended application'],
  ] as const) {
    withApiOptions(app.command(`${name} <slug>`))
      .description(what)
      .action(async (slug: string, options: ApiOptions) => {
        const updated = await clientFor(options).request<Row>('PATCH', `${APPS}/${pathSegment(slug)}`, { body: { status } });
        show(options.json === true, updated, () => printRecord(updated));
      });
  }

  withApiOptions(app.command('delete <slug>'))
    .description('delete an application: revokes its credentials and webhooks; with --delete-domains also deletes its live domains')
    .requiredOption('--confirm <slug>', 'repeat the slug to confirm')
    .option('--delete-domains', 'delete its live domains too (refused otherwise while it has any)')
    .action(async (slug: string, options: ApiOptions & { confirm: string; deleteDomains?: boolean }) => {
      const query = { confirm: options.confirm, delete_domains: options.deleteDomains ? 'true' : undefined };
      const deleted = await clientFor(options).request<{ slug: string; deleted_at: string; domains_deleted: number }>('DELETE', `${APPS}/${pathSegment(slug)}`, { query });
      show(options.json === true, deleted, () => console.log(`deleted ${deleted.slug} at ${deleted.deleted_at}; ${deleted.domains_deleted} domain(s) deleted`));
    });
}
