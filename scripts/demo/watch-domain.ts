// The application waiting for its domain: GET /v1/domains/{id} every
// POLL_MS, printing each change of the domain's status and of its four
// checks as it is seen.
import type { CustomDomainClient, Domain } from '@custom-domain-service/client';
import { waitFor } from './children';
import { dim, green, red, say, short } from './narrator';
import { POLL_MS } from './settings';

type Check = Domain['checks'][number];

const paintStatus = (status: string) => (status === 'passing' || status === 'ready' ? green(status) : status === 'failing' || status === 'attention_required' ? red(status) : status);

export class DomainWatch {
  private readonly seen = new Map<string, string>();
  private last: Domain;

  /** `client` should not print its calls: the watch prints what changed instead. */
  constructor(private readonly client: CustomDomainClient, initial: Domain, private readonly since: number) {
    this.last = initial;
    this.remember(initial);
  }

  get domain(): Domain {
    return this.last;
  }

  /** Polls until `until` holds for the domain (printing every change meanwhile); fails after `timeoutMs` naming `what`. */
  until(what: string, timeoutMs: number, until: (domain: Domain) => boolean): Promise<Domain> {
    return waitFor(what, timeoutMs, POLL_MS, async () => {
      this.show(await this.client.domains.get(this.last.id));
      return until(this.last) ? this.last : undefined;
    }, () => `the domain is ${this.last.status}; ${this.last.checks.map((c) => `${c.type} ${c.status}${c.error_code ? ` (${c.error_code})` : ''}`).join(', ')}`);
  }

  private remember(domain: Domain): void {
    this.seen.set('domain', domain.status);
    for (const check of domain.checks) this.seen.set(check.type, this.key(check));
  }

  private key(check: Check): string {
    return `${check.status}|${check.error_code ?? ''}`;
  }

  private show(domain: Domain): void {
    this.last = domain;
    const at = dim(`${((Date.now() - this.since) / 1000).toFixed(1).padStart(5)} s`);
    for (const check of domain.checks) {
      if (this.seen.get(check.type) === this.key(check)) continue;
      this.seen.set(check.type, this.key(check));
      const why = check.status === 'failing' ? `  ${dim(short(`${check.error_code}: ${check.message ?? ''}`, 90))}` : '';
      say(`${at}  ${check.type.padEnd(12)} ${paintStatus(check.status)}${why}`);
    }
    if (this.seen.get('domain') !== domain.status) {
      this.seen.set('domain', domain.status);
      say(`${at}  ${'domain'.padEnd(12)} ${paintStatus(domain.status)}`);
    }
  }
}
