// The DNS side of the ownership and routing checks, over DNS_SERVERS (the
// system resolvers when empty).
import { Resolver } from 'node:dns/promises';
import { errorMessage, MAX_CNAME_HOPS, type AddressAnswers, type CnameChain, type DnsAnswer } from '@cds/core';

/** Answers that mean "the name has no such record", not a failed lookup. */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);
const LOOKUP_TIMEOUT_MS = 3000;
const LOOKUP_TRIES = 2;

export interface DnsLookups {
  /** TXT records at `name`, each record's character strings joined. */
  txt(name: string): Promise<DnsAnswer<string>>;
  /** The CNAME chain from `name`, at most MAX_CNAME_HOPS hops; `complete` false when it went on. */
  cnameChain(name: string): Promise<CnameChain>;
  /** The A and AAAA answers at `name`, as the resolver gives them (a CNAME or ALIAS there is flattened by it). */
  addresses(name: string): Promise<AddressAnswers>;
}

function lookupError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code ?? errorMessage(err);
}

/** Node's codes of a DNS server's own refusals, as the DNS calls them in the check's message (DECISIONS §11's "(SERVFAIL)"). */
const RESPONSE_CODES: Readonly<Record<string, string>> = { ESERVFAIL: 'SERVFAIL', EREFUSED: 'REFUSED', ENOTIMP: 'NOTIMP', EFORMERR: 'FORMERR', ETIMEOUT: 'timeout' };

/** A failed lookup as an answer: no such record, or what failed (a response code, a timeout, the error's code). */
function failed(err: unknown): DnsAnswer<never> {
  const code = lookupError(err);
  return NO_RECORD.has(code) ? { records: [] } : { error: RESPONSE_CODES[code] ?? code };
}

function answer<T>(query: Promise<T[]>): Promise<DnsAnswer<T>> {
  return query.then((records) => ({ records }), failed);
}

/**
 * The CNAME chain from `name`, one lookup per hop and one beyond the last
 * allowed hop. Promise callbacks rather than an async loop: it runs for every
 * domain checked.
 */
export function followCnames(resolveCname: (name: string) => Promise<string[]>, name: string): Promise<CnameChain> {
  const chain: string[] = [];
  const hop = (current: string): Promise<CnameChain> => answer(resolveCname(current)).then((found): CnameChain | Promise<CnameChain> => {
    // The lookup beyond the last hop tells a chain of exactly MAX_CNAME_HOPS from a longer one.
    if (chain.length === MAX_CNAME_HOPS) return { records: chain, complete: 'error' in found || found.records.length === 0 };
    // A failed lookup at any hop leaves the chain unknown from there (inconclusive, unless it already reached the edge).
    if ('error' in found) return { records: chain, complete: true, error: found.error };
    const next = found.records[0];
    if (next === undefined) return { records: chain, complete: true };
    chain.push(next);
    return hop(next);
  });
  return hop(name);
}

export function createDnsLookups(servers: readonly string[]): DnsLookups {
  const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: LOOKUP_TRIES });
  if (servers.length > 0) resolver.setServers([...servers]);
  return {
    txt(name) {
      return resolver.resolveTxt(name).then((records) => ({ records: records.map((chunks) => chunks.join('')) }), failed);
    },
    cnameChain(name) {
      return followCnames((current) => resolver.resolveCname(current), name);
    },
    async addresses(name) {
      const [a, aaaa] = await Promise.all([answer(resolver.resolve4(name)), answer(resolver.resolve6(name))]);
      return { a, aaaa };
    },
  };
}
