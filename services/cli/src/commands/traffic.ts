import { InvalidArgumentError, type Command } from 'commander';
import { clientFor, pathSegment, withApiOptions, type ApiOptions } from '../api-options';
import { printTable, show, type Row } from '../output';

interface Traffic {
  slug: string;
  days: Row[];
  totals: { requests: number; response_bytes: number };
}

function parseDays(text: string): string {
  if (!/^\d{1,3}$/.test(text)) throw new InvalidArgumentError('expected a whole number of days (1 to 400)');
  return text;
}

export function registerTraffic(program: Command): void {
  withApiOptions(program.command('traffic <slug>'))
    .description('requests forwarded to the origin and the bytes of their responses, per UTC day, oldest first')
    .option('--days <n>', 'days in the window, today included (1 to 400; default 30)', parseDays)
    .action(async (slug: string, options: ApiOptions & { days?: string }) => {
      const traffic = await clientFor(options).request<Traffic>('GET', `/operator/v1/applications/${pathSegment(slug)}/traffic`, { query: { days: options.days } });
      show(options.json === true, traffic, () => {
        printTable(traffic.days, ['date', 'requests', 'response_bytes']);
        console.log(`\ntotal: ${traffic.totals.requests} request(s), ${traffic.totals.response_bytes} response byte(s)`);
      });
    });
}
