// The DNS side of the ownership and routing checks, over DNS_SERVERS (the
// system resolvers when empty).
import { Resolver } from 'node:dns/promises';
import { errorMessage, MAX_CNAME_HOPS, type DnsAnswer } from '@cds/core';

/** Answers that mean "the name has no such record", not a failed lookup. */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);
const LOOKUP_TIMEOUT_MS = 3000;
const LOOKUP_TRIES = 2;

export interface DnsLookups {
  /** TXT records at `name`, each record's character strings joined. */
  txt(name: string): Promise<DnsAnswer<string>>;
  /** The CNAME chain from `name`, at most MAX_CNAME_HOPS hops; `complete` false when it went on. */
  cnameChain(name: string): Promise<DnsAnswer<string> & { complete: boolean }>;
}

function lookupError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code ?? errorMessage(err);
}

async function answer<T>(query: () => Promise<T[]>): Promise<DnsAnswer<T>> {
  try {
    return { records: await query() };
  } catch (err) {
    const code = lookupError(err);
    return NO_RECORD.has(code) ? { records: [] } : { error: code };
  }
}

export function createDnsLookups(servers: readonly string[]): DnsLookups {
  const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: LOOKUP_TRIES });
  if (servers.length > 0) resolver.setServers([...servers]);
  return {
    async txt(name) {
      const found = await answer(() => resolver.resolveTxt(name));
      return 'error' in found ? found : { records: found.records.map((chunks) => chunks.join('')) };
    },
    async cnameChain(name) {
      const chain: string[] = [];
      let current = name;
      for (let hop = 0; hop < MAX_CNAME_HOPS; hop++) {
        const found = await answer(() => resolver.resolveCname(current));
        if ('error' in found) return chain.length === 0 ? { ...found, complete: true } : { records: chain, complete: true };
        const next = found.records[0];
        if (next === undefined) return { records: chain, complete: true };
        chain.push(next);
        current = next;
      }
      // One more lookup tells a chain of exactly MAX_CNAME_HOPS from a longer one.
      const beyond = await answer(() => resolver.resolveCname(current));
      return { records: chain, complete: 'error' in beyond || beyond.records.length === 0 };
    },
  };
}
