import ipaddr from 'ipaddr.js';
import { InvalidValueError } from './invalid-value';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A numeric last label would make it an IPv4 form (WHATWG URL rules), not a name. */
function isHostname(text: string): boolean {
  const labels = text.split('.');
  return text.length <= 253 && labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels.at(-1) ?? '');
}

/** IPv4 only in dotted four-part decimal (ipaddr.js alone also takes `127.1`, `0x7f.1`). */
function isIp(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);
}

function isCidr(text: string): boolean {
  const [address = '', bits, extra] = text.split('/');
  if (extra !== undefined || bits === undefined || !isIp(address)) return false;
  return ipaddr.isValidCIDR(text);
}

function splitList(text: string): string[] {
  return text === '' ? [] : text.split(',').map((item) => item.trim());
}

/** Lowercased, one trailing dot removed. */
export function parseHostname(text: string): string {
  const name = text.toLowerCase().replace(/\.$/, '');
  if (!isHostname(name)) throw new InvalidValueError('must be a hostname');
  return name;
}

export function parseBindAddress(text: string): string {
  if (!isIp(text) && !isHostname(text.toLowerCase())) throw new InvalidValueError('must be an IP address or a hostname');
  return text;
}

/** Comma list of CIDRs; a bare address counts as a single-host range. Normalized to `address/bits`. */
export function parseCidrList(text: string): string[] {
  return splitList(text).map((item) => {
    const cidr = isIp(item) ? `${item}/${ipaddr.parse(item).kind() === 'ipv4' ? 32 : 128}` : item;
    if (!isCidr(cidr)) throw new InvalidValueError('must be a comma list of CIDR ranges such as 10.0.0.0/8,fc00::/7');
    const [address, bits] = ipaddr.parseCIDR(cidr);
    return `${address.toString()}/${bits}`;
  });
}

/**
 * Comma list of IPv4 (dotted four-part decimal) and IPv6 addresses, written the
 * way DNS answers show them (IPv6 compressed, lowercase), duplicates dropped.
 * An IPv4-mapped IPv6 address or a zone index cannot be an AAAA record.
 */
export function parseEdgeAddresses(text: string): string[] {
  const addresses = splitList(text).map((item) => {
    const ipv6 = !ipaddr.IPv4.isValidFourPartDecimal(item) && ipaddr.IPv6.isValid(item) && !item.includes('%') ? ipaddr.IPv6.parse(item) : null;
    if (!ipaddr.IPv4.isValidFourPartDecimal(item) && (ipv6 === null || ipv6.isIPv4MappedAddress())) {
      throw new InvalidValueError('must be a comma list of IPv4 and IPv6 addresses such as 203.0.113.10,2001:db8::10');
    }
    return ipaddr.parse(item).toString();
  });
  return [...new Set(addresses)];
}

/** Comma list of `ip`, `ip:port`, `[ipv6]:port` (what `dns.Resolver#setServers` accepts). */
export function parseDnsServers(text: string): string[] {
  return splitList(text).map((item) => {
    if (!isDnsServer(item)) {
      throw new InvalidValueError('must be a comma list of DNS server addresses such as 127.0.0.1:8053 or [::1]:53');
    }
    return item;
  });
}

function isDnsServer(item: string): boolean {
  if (isIp(item)) return true;
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(item);
  if (!match) return false;
  const host = match[1] ?? match[2] ?? '';
  const port = Number(match[3]);
  const bracketsFit = match[1] === undefined ? ipaddr.IPv4.isValidFourPartDecimal(host) : ipaddr.IPv6.isValid(host);
  return bracketsFit && port >= 1 && port <= 65_535;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'] as const;

/**
 * express `trust proxy`: `false`, a hop count, or a comma list of addresses,
 * CIDRs and the names loopback, linklocal, uniquelocal. `true` is refused: it
 * trusts every hop, so the client address would be whatever the client wrote
 * first in X-Forwarded-For, and the allowlist and failure budgets key on it.
 */
export function parseTrustProxy(text: string): false | number | string {
  const lower = text.toLowerCase();
  if (lower === 'true') {
    throw new InvalidValueError(
      "must not be true: it trusts every hop, so any client chooses its own address (X-Forwarded-For) and escapes OPERATOR_ALLOWED_CIDRS and the failed-auth throttles; give the proxies' addresses or the hop count (docs/operations.md, \"Proxies in front of the API\")",
    );
  }
  if (lower === 'false') return false;
  if (/^\d{1,3}$/.test(text)) return Number(text);
  const valid = splitList(text).every(
    (item) => (PROXY_NAMES as readonly string[]).includes(item.toLowerCase()) || isIp(item) || isCidr(item),
  );
  if (!valid) {
    throw new InvalidValueError(
      'must be false, a hop count, or a comma list of addresses, CIDRs, loopback, linklocal, uniquelocal',
    );
  }
  return text;
}
