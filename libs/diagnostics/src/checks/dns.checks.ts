// The DNS servers the checker asks (DNS_SERVERS, else the system's) answer,
// and EDGE_TARGET, the name customers point their CNAME at, resolves.
import { Resolver } from 'node:dns/promises';
import { errorMessage } from '@cds/core';
import { FINDING_STATUSES, formatSeconds, type Check, type Finding, type FindingStatus } from '../check';
import { CHECK_NAMES } from '../check-names';

const QUERY_TIMEOUT_MS = 2000;
const TIMEOUT_MS = 5000;
/** c-ares codes that are an answer from the server: the name does not exist, or has no record of the type. */
const ANSWERED = new Set(['ENOTFOUND', 'ENODATA']);
/** Answers that say the server will not or cannot resolve. */
const REFUSED = new Set(['ESERVFAIL', 'EREFUSED']);

export interface DnsCheckConfig {
  dnsServers: readonly string[];
  edgeTarget: string;
}

function resolverFor(servers: readonly string[]): Resolver {
  const resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: 1 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : errorMessage(error);
}

/** How one server answered a query for `name`. */
async function probeServer(server: string | null, name: string): Promise<{ status: FindingStatus; text: string }> {
  const resolver = resolverFor(server === null ? [] : [server]);
  const label = server ?? `system resolvers (${resolver.getServers().join(', ') || 'none configured'})`;
  try {
    await resolver.resolve4(name);
    return { status: FINDING_STATUSES.ok, text: `${label} answered` };
  } catch (error) {
    const code = codeOf(error);
    if (ANSWERED.has(code)) return { status: FINDING_STATUSES.ok, text: `${label} answered (${code === 'ENOTFOUND' ? 'NXDOMAIN' : 'no A record'})` };
    if (REFUSED.has(code)) return { status: FINDING_STATUSES.warn, text: `${label} answered ${code.slice(1)}` };
    if (code === 'ETIMEOUT') return { status: FINDING_STATUSES.fail, text: `${label}: no answer within ${formatSeconds(QUERY_TIMEOUT_MS)}` };
    return { status: FINDING_STATUSES.fail, text: `${label}: ${code}` };
  }
}

/** Every server answering is ok; some failing is a warning (lookups slow down); none answering fails. */
async function resolversFinding(config: DnsCheckConfig): Promise<Finding> {
  const servers = config.dnsServers.length > 0 ? config.dnsServers : [null];
  const probes = await Promise.all(servers.map((server) => probeServer(server, config.edgeTarget)));
  const message = probes.map((probe) => probe.text).join('; ');
  const answering = probes.filter((probe) => probe.status !== FINDING_STATUSES.fail).length;
  if (answering === 0) return { status: FINDING_STATUSES.fail, message };
  if (probes.some((probe) => probe.status !== FINDING_STATUSES.ok)) return { status: FINDING_STATUSES.warn, message };
  return { status: FINDING_STATUSES.ok, message };
}

async function edgeTargetFinding(config: DnsCheckConfig): Promise<Finding> {
  const resolver = resolverFor(config.dnsServers);
  const lookups = await Promise.allSettled([resolver.resolve4(config.edgeTarget), resolver.resolve6(config.edgeTarget)]);
  const addresses = lookups.flatMap((lookup) => (lookup.status === 'fulfilled' ? lookup.value : []));
  if (addresses.length > 0) return { status: FINDING_STATUSES.ok, message: `${config.edgeTarget} resolves to ${addresses.join(', ')}` };
  const reasons = [...new Set(lookups.map((lookup) => (lookup.status === 'rejected' ? codeOf(lookup.reason) : 'no address')))];
  return {
    status: FINDING_STATUSES.warn,
    message: `EDGE_TARGET ${config.edgeTarget} does not resolve (${reasons.join(', ')}): customers' CNAME records lead nowhere`,
  };
}

export function dnsChecks(config: DnsCheckConfig): Check[] {
  return [
    { name: CHECK_NAMES.dnsResolvers, timeoutMs: TIMEOUT_MS, run: () => resolversFinding(config) },
    { name: CHECK_NAMES.edgeTarget, timeoutMs: TIMEOUT_MS, run: () => edgeTargetFinding(config) },
  ];
}
