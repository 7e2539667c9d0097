// Which webhook targets may be contacted: a URL's form, and every address its
// host stands for. Pure logic; resolving names is the caller's job (the API at
// create time, the dispatcher at connect time), so both apply the same rules.
import ipaddr from 'ipaddr.js';

/** `details.reason` of `invalid_webhook_url`. */
export const WEBHOOK_URL_REFUSALS = {
  invalidUrl: 'invalid_url',
  schemeNotHttps: 'scheme_not_https',
  credentialsInUrl: 'credentials_in_url',
  unresolvable: 'unresolvable',
  unspecified: 'unspecified',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link_local',
  cgnat: 'cgnat',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
} as const;
export type WebhookUrlRefusal = (typeof WEBHOOK_URL_REFUSALS)[keyof typeof WEBHOOK_URL_REFUSALS];

const R = WEBHOOK_URL_REFUSALS;
type AddressRefusal = Exclude<WebhookUrlRefusal, 'invalid_url' | 'scheme_not_https' | 'credentials_in_url' | 'unresolvable'>;

/** Why an address may not be contacted; `embeddedIpv4` when an IPv6 form carries the IPv4 address that decided. */
export interface AddressVerdict {
  public: boolean;
  reason?: AddressRefusal;
  embeddedIpv4?: string;
}

// ipaddr.js range names. Ranges missing from both maps are public (AS112 and
// AMT anycast, for instance, are globally reachable).
const IPV4_REFUSED: Record<string, AddressRefusal> = {
  unspecified: R.unspecified,
  broadcast: R.broadcast,
  multicast: R.multicast,
  linkLocal: R.linkLocal,
  loopback: R.loopback,
  carrierGradeNat: R.cgnat,
  private: R.private,
  reserved: R.reserved, // IETF protocol assignments, TEST-NETs, 6to4 relay anycast, benchmarking, 240/4
};

const IPV6_REFUSED: Record<string, AddressRefusal> = {
  unspecified: R.unspecified,
  linkLocal: R.linkLocal,
  multicast: R.multicast,
  loopback: R.loopback,
  uniqueLocal: R.private,
  deprecatedSiteLocal: R.private,
  discard: R.reserved,
  benchmarking: R.reserved,
  deprecatedOrchid: R.reserved,
  orchid2: R.reserved,
  droneRemoteIdProtocolEntityTags: R.reserved,
  segmentRouting: R.reserved,
  reserved: R.reserved, // 2001::/23 rest, documentation 2001:db8::/32 and 3fff::/20
};

/** Only 2000::/3 is global unicast; anything else unassigned is reserved. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
/** RFC 8215 local-use NAT64 prefix, a private network's translator. */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');

function ipv4FromBytes(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(0, 4));
}

/** The IPv4 addresses an IPv6 transition form leads to (mapped, translated, NAT64, 6to4, Teredo). */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const bytes = address.toByteArray();
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return [ipv4FromBytes(bytes.slice(12))];
    case 'rfc6052': // 64:ff9b::a.b.c.d
      return [ipv4FromBytes(bytes.slice(12))];
    case '6to4': // 2002:AABB:CCDD::/48
      return [ipv4FromBytes(bytes.slice(2, 6))];
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client xor ffffffff>
      return [ipv4FromBytes(bytes.slice(4, 8)), ipv4FromBytes(bytes.slice(12).map((b) => b ^ 0xff))];
    default:
      return [];
  }
}

function classifyIpv4(address: ipaddr.IPv4): AddressVerdict {
  const reason = IPV4_REFUSED[address.range()];
  return reason ? { public: false, reason } : { public: true };
}

/** Public or not, and why not. `address` is an IPv4 (dotted decimal) or IPv6 address. */
export function classifyAddress(address: string): AddressVerdict {
  const parsed = parseAddress(address);
  if (parsed.kind() === 'ipv4') return classifyIpv4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(LOCAL_NAT64)) return { public: false, reason: R.private };
  const embedded = embeddedIpv4(v6);
  if (embedded.length > 0) {
    for (const v4 of embedded) {
      const verdict = classifyIpv4(v4);
      if (!verdict.public) return { ...verdict, embeddedIpv4: v4.toString() };
    }
    return { public: true };
  }
  const reason = IPV6_REFUSED[v6.range()];
  if (reason) return { public: false, reason };
  return v6.match(GLOBAL_UNICAST) ? { public: true } : { public: false, reason: R.reserved };
}

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return ipaddr.IPv4.parse(address);
  if (ipaddr.IPv6.isValid(address)) return ipaddr.IPv6.parse(address);
  throw new TypeError(`Not an IP address: ${address}`);
}

// The allowed ranges come from configuration: parsed once, not at every connection.
const parsedCidrs = new Map<string, [ipaddr.IPv4 | ipaddr.IPv6, number]>();

function parseCidr(cidr: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  let range = parsedCidrs.get(cidr);
  if (!range) {
    range = ipaddr.parseCIDR(cidr);
    parsedCidrs.set(cidr, range);
  }
  return range;
}

/** True when `address`, or the IPv4 address an IPv6 form carries, lies in one of `cidrs` (`address/bits`). */
export function inAllowedRanges(address: string, cidrs: readonly string[]): boolean {
  if (cidrs.length === 0) return false;
  const parsed = parseAddress(address);
  const candidates: Array<ipaddr.IPv4 | ipaddr.IPv6> = [parsed];
  if (parsed.kind() === 'ipv6') candidates.push(...embeddedIpv4(parsed as ipaddr.IPv6));
  return cidrs.some((cidr) => {
    const range = parseCidr(cidr);
    return candidates.some((candidate) => candidate.kind() === range[0].kind() && candidate.match(range));
  });
}

/** A refused webhook target, as `invalid_webhook_url` details carry it. */
export interface WebhookUrlProblem {
  reason: WebhookUrlRefusal;
  address?: string;
  embedded_ipv4?: string;
}

/**
 * The first address that may not be contacted, or null when all may: public,
 * or inside `allowCidrs`. One refused address refuses the whole answer, so a
 * name that mixes public and private addresses is refused.
 */
export function refusedAddress(addresses: readonly string[], allowCidrs: readonly string[]): WebhookUrlProblem | null {
  if (addresses.length === 0) return { reason: R.unresolvable };
  for (const address of addresses) {
    if (inAllowedRanges(address, allowCidrs)) continue;
    const verdict = classifyAddress(address);
    if (!verdict.public) {
      return { reason: verdict.reason ?? R.reserved, address, ...(verdict.embeddedIpv4 ? { embedded_ipv4: verdict.embeddedIpv4 } : {}) };
    }
  }
  return null;
}

export type ParsedWebhookUrl =
  | { ok: true; url: URL; hostname: string; ipLiteral: string | null }
  | { ok: false; problem: WebhookUrlProblem };

/**
 * The URL's form: https, no credentials. The WHATWG parser (the one the
 * dispatcher's client uses) has already turned decimal, octal and hex IPv4
 * forms (`2130706433`, `0x7f.1`, `0177.0.0.1`) into dotted decimal, so an IP
 * literal is recognized in every spelling. `hostname` is what to resolve.
 */
export function parseWebhookUrl(raw: string): ParsedWebhookUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: { reason: R.invalidUrl } };
  }
  if (url.protocol !== 'https:') return { ok: false, problem: { reason: R.schemeNotHttps } };
  if (url.username !== '' || url.password !== '') return { ok: false, problem: { reason: R.credentialsInUrl } };
  const host = url.hostname;
  if (host === '') return { ok: false, problem: { reason: R.invalidUrl } };
  if (host.startsWith('[')) return { ok: true, url, hostname: host, ipLiteral: host.slice(1, -1) };
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return { ok: true, url, hostname: host, ipLiteral: host };
  return { ok: true, url, hostname: host.replace(/\.$/, ''), ipLiteral: null };
}
