import { promises as dns } from 'node:dns';

/** Per question to a configured server. */
const RESOLVER_OPTIONS = { timeout: 2000, tries: 2 };

/** Errors that mean "no address of that family", not a resolver failure. */
const NO_ANSWER = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

async function orNone(lookup: Promise<string[]>): Promise<string[]> {
  try {
    return await lookup;
  } catch (err) {
    if (NO_ANSWER.has((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}

/**
 * Every IPv4 and IPv6 address of `hostname`: from `servers` (DNS_SERVERS)
 * when set, else from the system resolver; [] when it has none. The API's
 * webhook URL test and the dispatcher's connect-time check both use it, so
 * create time and connect time agree.
 */
export async function resolveAddresses(hostname: string, servers: readonly string[]): Promise<string[]> {
  if (servers.length === 0) {
    return orNone(dns.lookup(hostname, { all: true, verbatim: true }).then((all) => all.map((a) => a.address)));
  }
  const resolver = new dns.Resolver(RESOLVER_OPTIONS);
  resolver.setServers([...servers]);
  const [v4, v6] = await Promise.all([orNone(resolver.resolve4(hostname)), orNone(resolver.resolve6(hostname))]);
  return [...v4, ...v6];
}
