import type { Command } from 'commander';
import { clientFor, pathSegment, withApiOptions, type ApiOptions } from '../api-options';
import { printRecord, printTable, show, type Row } from '../output';

const LIST_COLUMNS = ['id', 'name', 'prefix', 'status', 'created_at', 'expires_at', 'last_used_at'];
const credentials = (slug: string) => `/operator/v1/applications/${pathSegment(slug)}/credentials`;

/** An issued credential: the secret is shown once, so say so. */
function printIssued(issued: Row): void {
  printRecord(issued);
  console.log('\nThe secret is shown only this once: hand it to the application now.');
}

export function registerCredential(program: Command): void {
  const credential = program.command('credential').description("an application's API credentials: issue, list, rotate, revoke, delete");

  withApiOptions(credential.command('issue <slug>'))
    .description('issue a credential; prints its secret once')
    .option('--name <name>', 'a label for it')
    .action(async (slug: string, options: ApiOptions & { name?: string }) => {
      const issued = await clientFor(options).request<Row>('POST', credentials(slug), { body: options.name ? { name: options.name } : {} });
      show(options.json === true, issued, () => printIssued(issued));
    });

  withApiOptions(credential.command('list <slug>'))
    .description('list credentials (secrets are never shown again)')
    .action(async (slug: string, options: ApiOptions) => {
      const list = await clientFor(options).request<Row[]>('GET', credentials(slug));
      show(options.json === true, list, () => printTable(list, LIST_COLUMNS));
    });

  withApiOptions(credential.command('rotate <slug> <credential-id>'))
    .description('issue a replacement; the old credential keeps working for 24 hours')
    .option('--name <name>', 'a label for the new one')
    .action(async (slug: string, id: string, options: ApiOptions & { name?: string }) => {
      const body = options.name ? { name: options.name } : {};
      const issued = await clientFor(options).request<Row>('POST', `${credentials(slug)}/${pathSegment(id)}/rotate`, { body });
      show(options.json === true, issued, () => printIssued(issued));
    });

  withApiOptions(credential.command('revoke <slug> <credential-id>'))
    .description('revoke a credential at once')
    .action(async (slug: string, id: string, options: ApiOptions) => {
      const revoked = await clientFor(options).request<Row>('POST', `${credentials(slug)}/${pathSegment(id)}/revoke`);
      show(options.json === true, revoked, () => printRecord(revoked));
    });

  withApiOptions(credential.command('delete <slug> <credential-id>'))
    .description('delete a credential record')
    .action(async (slug: string, id: string, options: ApiOptions) => {
      await clientFor(options).request('DELETE', `${credentials(slug)}/${pathSegment(id)}`);
      show(options.json === true, { deleted: id }, () => console.log(`deleted credential ${id}`));
    });
}
