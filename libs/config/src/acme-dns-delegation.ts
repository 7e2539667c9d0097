// DECISIONS §13: certificates before cutover. An operator who runs a zone that
// accepts TSIG-signed RFC 2136 updates names it, its update server and the
// key; the three go together, and none of them set keeps HTTP-01 alone.
import ipaddr from 'ipaddr.js';
import { ConfigError } from './config-error';
import type { Config, DnsUpdateServer, TsigKey, TsigAlgorithm } from './config.types';
import { TSIG_ALGORITHMS } from './config.types';
import { InvalidValueError } from './invalid-value';
import { parseHostname } from './network-parsers';

const DNS_PORT = 53;
/** RFC 8945 §6: a MAC key shorter than the hash's output halves the strength; 16 bytes is the least we take. */
const MIN_SECRET_BYTES = 16;

/** `host[:port]`, an IPv6 address in brackets when a port follows; port 53 when none. */
export function parseDnsUpdateServer(text: string): DnsUpdateServer {
  const expectation = 'must be host[:port], such as ns1.example.com, 192.0.2.53:53 or [2001:db8::53]:53';
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) {
    if (!ipaddr.IPv6.isValid(bracketed[1] ?? '')) throw new InvalidValueError(expectation);
    return { host: bracketed[1] ?? '', port: portOf(bracketed[2], expectation) };
  }
  if (ipaddr.IPv6.isValid(text) && text.includes(':')) return { host: text, port: DNS_PORT };
  const [host = '', port, ...rest] = text.split(':');
  if (rest.length > 0) throw new InvalidValueError(expectation);
  try {
    return { host: ipaddr.IPv4.isValidFourPartDecimal(host) ? host : parseHostname(host), port: portOf(port, expectation) };
  } catch {
    throw new InvalidValueError(expectation);
  }
}

function portOf(text: string | undefined, expectation: string): number {
  if (text === undefined) return DNS_PORT;
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text) || port < 1 || port > 65_535) throw new InvalidValueError(expectation);
  return port;
}

/** `name:algorithm:secret`: the key's name, hmac-sha256|384|512, the base64 secret (nsupdate's `-y` takes `algorithm:name:secret`). The secret is never echoed. */
export function parseTsigKey(text: string): TsigKey {
  const parts = text.split(':');
  if (parts.length !== 3) throw new InvalidValueError('must be name:algorithm:secret, such as cds-acme:hmac-sha256:<base64 secret>');
  const [rawName = '', rawAlgorithm = '', secret = ''] = parts;
  let name: string;
  try {
    name = parseHostname(rawName);
  } catch {
    throw new InvalidValueError('must start with the key name as the DNS server knows it (a domain name, such as cds-acme or cds-acme.example.com)');
  }
  const algorithm = rawAlgorithm.toLowerCase().replace(/\.$/, '');
  if (!(TSIG_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new InvalidValueError(`names algorithm "${rawAlgorithm}": it must be one of ${TSIG_ALGORITHMS.join(', ')}`);
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(secret) || secret.length % 4 !== 0 || Buffer.from(secret, 'base64').length < MIN_SECRET_BYTES) {
    throw new InvalidValueError(`must end with the key's secret in base64, of at least ${MIN_SECRET_BYTES} bytes (as tsig-keygen prints it)`);
  }
  return { name, algorithm: algorithm as TsigAlgorithm, secret };
}

type DelegationSettings = Pick<Config, 'acmeDnsZone' | 'acmeDnsUpdateServer' | 'acmeDnsTsigKey'>;

const NAMES = { acmeDnsZone: 'ACME_DNS_ZONE', acmeDnsUpdateServer: 'ACME_DNS_UPDATE_SERVER', acmeDnsTsigKey: 'ACME_DNS_TSIG_KEY' } as const;

/** All three or none. */
export function checkAcmeDnsDelegation(config: DelegationSettings): void {
  const keys = Object.keys(NAMES) as (keyof DelegationSettings)[];
  const set = keys.filter((key) => config[key] !== null);
  if (set.length === 0 || set.length === keys.length) return;
  const missing = keys.find((key) => config[key] === null) as keyof DelegationSettings;
  throw new ConfigError(NAMES[missing], `is required when ${set.map((key) => NAMES[key]).join(' and ')} ${set.length === 1 ? 'is' : 'are'} set: certificates before cutover need the zone, its update server and the TSIG key`);
}
