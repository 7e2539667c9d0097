import type { Command } from 'commander';
import { clientFor, pathSegment, withApiOptions, type ApiOptions } from '../api-options';
import { printRecord, printTable, show, type Row } from '../output';

const keys = (slug: string) => `/operator/v1/applications/${pathSegment(slug)}/assertion-keys`;

export function registerAssertionKey(program: Command): void {
  const key = program
    .command('assertion-key')
    .description("keys that sign the X-Custom-Domain-Assertion sent to an application's origin: issue, list, revoke");

  withApiOptions(key.command('issue <slug>'))
    .description('issue the next key; it signs from now on; prints its secret once')
    .action(async (slug: string, options: ApiOptions) => {
      const issued = await clientFor(options).request<Row>('POST', keys(slug), { body: {} });
      show(options.json === true, issued, () => {
        printRecord(issued);
        console.log('\nThe secret is shown only this once: give it to the origin, which verifies assertions with it.');
      });
    });

  withApiOptions(key.command('list <slug>'))
    .description('list keys and the one that signs now')
    .action(async (slug: string, options: ApiOptions) => {
      const list = await clientFor(options).request<{ signing_kid: string; keys: Row[] }>('GET', keys(slug));
      show(options.json === true, list, () => {
        console.log(`signing kid: ${list.signing_kid}\n`);
        printTable(list.keys, ['kid', 'status', 'created_at', 'revoked_at']);
      });
    });

  withApiOptions(key.command('revoke <slug> <kid>'))
    .description('stop signing with a key at once; the previous key or the deployment key takes over')
    .action(async (slug: string, kid: string, options: ApiOptions) => {
      const revoked = await clientFor(options).request<Row>('POST', `${keys(slug)}/${pathSegment(kid)}/revoke`);
      show(options.json === true, revoked, () => printRecord(revoked));
    });
}
