// Hostname normalization and refusal, in the exact order of DECISIONS.md §2 "Hostname":
// the first rule a name breaks decides its error code.
import { domainToASCII, domainToUnicode } from 'node:url';
import { getDomain } from 'tldts';
import { AppError, ErrorCode } from './errors';

/** 228 keeps `_custom-domain-challenge.<hostname>` (25 more octets) within DNS's 253. */
export const MAX_HOSTNAME_OCTETS = 228;
export const MAX_LABEL_OCTETS = 63;

export interface NormalizeHostnameOptions {
  /** The CNAME target customers publish (`EDGE_TARGET`). */
  edgeTarget: string;
  /** Registrable domains may be registered (DECISIONS §12: `EDGE_ADDRESSES` is set); absent or false: `apex_not_supported`. */
  apexDomains?: boolean;
}

// WHATWG URL "forbidden host code points" (besides NUL, TAB, LF, CR, checked by code).
const FORBIDDEN_HOST_CHARS = new Set([' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|']);
const LABEL_CHARS = /^[a-z0-9-]+$/;
// How the WHATWG host parser writes an IPv4 address it accepted, whatever form it was given in.
const SERIALIZED_IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const IPV6_CHARS = /^[0-9a-f:.]+$/;
const TLDTS_OPTIONS = { allowPrivateDomains: true, extractHostname: false } as const;

function refuse(code: ErrorCode, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError(code, message, { field: 'hostname', ...details });
}

function isForbiddenHostChar(ch: string): boolean {
  const cp = ch.codePointAt(0);
  return cp === 0x00 || cp === 0x09 || cp === 0x0a || cp === 0x0d || FORBIDDEN_HOST_CHARS.has(ch);
}

/** WHATWG "forbidden domain code points": host ones plus C0 controls, `%` and DEL. */
function isForbiddenDomainChar(ch: string): boolean {
  const cp = ch.codePointAt(0) ?? 0;
  return isForbiddenHostChar(ch) || cp <= 0x1f || cp === 0x25 || cp === 0x7f;
}

function describeChar(ch: string): string {
  const cp = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  return `${JSON.stringify(ch)} (U+${cp})`;
}

/**
 * True when the WHATWG URL parser would read the name as an IP address: IPv4 in any
 * form it accepts (`127.1`, `0x7f.0.0.1`, `2130706433`, full-width digits, ...) or IPv6,
 * bracketed or not (a `%zone` suffix is ignored). Must run before IDNA, because
 * `domainToASCII` itself rewrites IPv4 forms (`1.2.3` becomes `1.2.0.3`).
 */
function isIpLiteral(name: string): boolean {
  const bracketed = name.startsWith('[') && name.endsWith(']');
  if (bracketed || name.includes(':')) {
    const inner = (bracketed ? name.slice(1, -1) : name).replace(/%.*$/, '');
    return IPV6_CHARS.test(inner) && domainToASCII(`[${inner}]`) !== '';
  }
  // A name with a forbidden host code point is no host at all; without one, domainToASCII
  // is the WHATWG host parser, which returns a dotted quad only for an IPv4 address.
  return ![...name].some(isForbiddenHostChar) && SERIALIZED_IPV4.test(domainToASCII(name));
}

/**
 * The registrable domain of a normalized hostname (public suffix plus one label, ICANN and
 * private PSL sections), or null for a public suffix itself.
 */
export function registrableDomain(hostname: string): string | null {
  return getDomain(hostname, TLDTS_OPTIONS);
}

/** True when the normalized hostname is a registrable domain itself (`customer.com`, `foo.github.io`): an apex. */
export function isApexDomain(hostname: string): boolean {
  return registrableDomain(hostname) === hostname;
}

/**
 * The name customers may not register: EDGE_TARGET's registrable domain, or EDGE_TARGET
 * itself when it has none (an IP, a public suffix).
 */
function protectedEdgeName(edgeTarget: string): string {
  const target = edgeTarget.trim().replace(/\.$/, '').toLowerCase();
  const ascii = domainToASCII(target) || target;
  return registrableDomain(ascii) ?? ascii;
}

/**
 * An `xn--` label must be the Punycode of a valid Unicode label (UTS #46 ToASCII).
 * Since Node.js 24, domainToASCII passes an all-ASCII name through unchecked
 * (`xn--zz` comes back as given), so each such label is decoded and encoded again:
 * one that does not come back the same is no IDNA label.
 */
function isIdnaLabel(label: string): boolean {
  if (!label.startsWith('xn--')) return true;
  const unicode = domainToUnicode(label);
  return unicode !== '' && !unicode.startsWith('xn--') && domainToASCII(unicode) === label;
}

function labelProblem(label: string): string | null {
  if (label === '') return 'is empty (two dots in a row, or a dot at the start or end)';
  if (label.length > MAX_LABEL_OCTETS) return `is ${label.length} octets long; a label may have at most ${MAX_LABEL_OCTETS}`;
  if (!LABEL_CHARS.test(label)) return 'contains characters other than letters a-z, digits 0-9 and hyphens';
  if (label.startsWith('-') || label.endsWith('-')) return 'starts or ends with a hyphen';
  return null;
}

/**
 * A name in the form domains are stored in (trimmed, one trailing dot stripped,
 * lowercase punycode), or the AppError of the first rule of DECISIONS.md §2 that
 * makes it no hostname at all (empty, wildcard, IP literal, characters, IDNA,
 * length, labels). What may be registered is normalizeHostname's question; a
 * lookup of stored domains asks only this one.
 */
export function canonicalHostname(input: string): string {
  const trimmed = input.trim();
  if (trimmed === '') throw refuse('empty_hostname', 'The hostname is empty.');

  const name = (trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed).toLowerCase();
  // NFKC also catches look-alikes that IDNA would map to `*` (U+FF0A, U+FE61).
  if (name.normalize('NFKC').includes('*')) {
    throw refuse('wildcard_not_supported', `The hostname ${JSON.stringify(name)} contains "*": wildcard domains are not supported; register each exact subdomain.`);
  }
  if (isIpLiteral(name)) {
    throw refuse('ip_literal_not_supported', `The hostname ${JSON.stringify(name)} is an IP address; register a domain name such as shop.example.com instead.`);
  }

  const forbidden = [...name].find(isForbiddenDomainChar);
  if (forbidden !== undefined) {
    throw refuse('invalid_hostname', `The hostname ${JSON.stringify(name)} contains ${describeChar(forbidden)}, which is not allowed in a hostname (no spaces, ports, paths or URLs).`);
  }
  const ascii = domainToASCII(name);
  if (ascii === '' || !ascii.split('.').every(isIdnaLabel)) {
    throw refuse('invalid_hostname', `The hostname ${JSON.stringify(name)} is not a valid domain name (IDNA UTS #46 conversion failed).`);
  }

  if (ascii.length > MAX_HOSTNAME_OCTETS) {
    throw refuse('hostname_too_long', `The hostname is ${ascii.length} octets long (in punycode); at most ${MAX_HOSTNAME_OCTETS} are allowed.`);
  }

  const labels = ascii.split('.');
  for (const label of labels) {
    const problem = labelProblem(label);
    if (problem !== null) {
      throw refuse('invalid_label', `In the hostname "${ascii}", the label "${label}" ${problem}.`, { label });
    }
  }
  return ascii;
}

/**
 * Normalizes a customer hostname to lowercase punycode, or throws the AppError of the
 * first rule it breaks (DECISIONS.md §2): canonicalHostname's, then those of registration.
 */
export function normalizeHostname(input: string, opts: NormalizeHostnameOptions): string {
  const ascii = canonicalHostname(input);
  const labels = ascii.split('.');
  if (labels.length === 1) {
    throw refuse('invalid_hostname', `The hostname "${ascii}" has a single label; register a full subdomain such as shop.example.com.`);
  }
  const registrable = registrableDomain(ascii);
  if (registrable === null) {
    throw refuse('invalid_hostname', `The hostname "${ascii}" is a public suffix (a name under which anyone can register domains), not a domain you can own.`);
  }

  const edgeName = protectedEdgeName(opts.edgeTarget);
  if (ascii === edgeName || ascii.endsWith(`.${edgeName}`)) {
    throw refuse('invalid_hostname', `The hostname "${ascii}" belongs to this service's own edge domain (${edgeName}) and cannot be registered.`);
  }

  if (ascii === registrable && opts.apexDomains !== true) {
    throw refuse('apex_not_supported', `The hostname "${ascii}" is an apex (registrable) domain, which cannot carry a CNAME record; register a subdomain such as www.${ascii}.`);
  }
  return ascii;
}
