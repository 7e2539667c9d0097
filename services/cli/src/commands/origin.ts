import type { Command } from 'commander';
import { clientFor, pathSegment, withApiOptions, type ApiOptions } from '../api-options';
import { printRecord, printTable, show, type Row } from '../output';

const LIST_COLUMNS = ['id', 'url', 'health_path', 'status', 'last_verified_at', 'last_error'];
const origins = (slug: string) => `/operator/v1/applications/${pathSegment(slug)}/origins`;

export function registerOrigin(program: Command): void {
  const origin = program
    .command('origin')
    .description("an application's origins (where the edge forwards its traffic): add, list, verify, activate, retire, delete");

  withApiOptions(origin.command('add <slug> <url>'))
    .description('register an origin (http or https URL); it starts pending_verification')
    .option('--health-path <path>', 'path the verification and origin check request (default: /)')
    .action(async (slug: string, url: string, options: ApiOptions & { healthPath?: string }) => {
      const body = { url, ...(options.healthPath ? { health_path: options.healthPath } : {}) };
      const added = await clientFor(options).request<Row>('POST', origins(slug), { body });
      show(options.json === true, added, () => printRecord(added));
    });

  withApiOptions(origin.command('list <slug>'))
    .description('list origins')
    .action(async (slug: string, options: ApiOptions) => {
      const list = await clientFor(options).request<Row[]>('GET', origins(slug));
      show(options.json === true, list, () => printTable(list, LIST_COLUMNS));
    });

  withApiOptions(origin.command('verify <slug> <origin-id>'))
    .description('probe the origin (any answer below 500 passes); on success it becomes verified')
    .option('--health-path <path>', 'change the health path first')
    .action(async (slug: string, id: string, options: ApiOptions & { healthPath?: string }) => {
      const body = options.healthPath ? { health_path: options.healthPath } : {};
      const verified = await clientFor(options).request<Row>('POST', `${origins(slug)}/${pathSegment(id)}/verify`, { body });
      show(options.json === true, verified, () => printRecord(verified));
    });

  for (const [name, what] of [
    ['activate', 'make a verified origin the one traffic goes to (the previous one goes back to verified)'],
    ['retire', 'retire an origin'],
  ] as const) {
    withApiOptions(origin.command(`${name} <slug> <origin-id>`))
      .description(what)
      .action(async (slug: string, id: string, options: ApiOptions) => {
        const changed = await clientFor(options).request<Row>('POST', `${origins(slug)}/${pathSegment(id)}/${name}`);
        show(options.json === true, changed, () => printRecord(changed));
      });
  }

  withApiOptions(origin.command('delete <slug> <origin-id>'))
    .description('delete an origin that is not active')
    .action(async (slug: string, id: string, options: ApiOptions) => {
      await clientFor(options).request('DELETE', `${origins(slug)}/${pathSegment(id)}`);
      show(options.json === true, { deleted: id }, () => console.log(`deleted origin ${id}`));
    });
}
