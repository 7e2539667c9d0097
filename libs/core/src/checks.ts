// Pure evaluation of the four checks (DECISIONS §2): DNS answers and probe
// results in, {status, error_code, message} out. The checker does the I/O.
import ipaddr from 'ipaddr.js';
import { challengeRecordName, challengeRecordValue } from './dns-records';
import type { CheckErrorCode, CheckStatus, CheckType } from './domain-status';

/** CNAME hops followed before the chain is given up. */
export const MAX_CNAME_HOPS = 8;

export interface CheckOutcome<T extends CheckType = CheckType> {
  status: CheckStatus;
  errorCode: CheckErrorCode<T> | null;
  message: string | null;
  /**
   * A failure that says nothing sure about the customer's setup (DECISIONS
   * §11): a DNS lookup that timed out, answered SERVFAIL or REFUSED or failed
   * at the network, or an origin probe that failed. Absent on the others.
   */
  inconclusive?: true;
}

const passing = <T extends CheckType>(): CheckOutcome<T> => ({ status: 'passing', errorCode: null, message: null });
const failing = <T extends CheckType>(errorCode: CheckErrorCode<T>, message: string): CheckOutcome<T> => ({ status: 'failing', errorCode, message });
const inconclusive = <T extends CheckType>(errorCode: CheckErrorCode<T>, message: string): CheckOutcome<T> => ({ status: 'failing', errorCode, message, inconclusive: true });

/** DNS names compare case-insensitively, with the trailing dot ignored. */
export function sameDnsName(a: string, b: string): boolean {
  return a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');
}

/**
 * A DNS answer: the records found (empty when the name has none, NXDOMAIN
 * included), or the lookup error of a failure other than "no such record"
 * (a timeout, SERVFAIL, REFUSED, a network error): an inconclusive answer.
 */
export type DnsAnswer<T> = { records: T[] } | { error: string };

/**
 * A CNAME chain: the targets followed from the hostname, in order (empty or
 * absent: no CNAME); `complete` is false when it went on past MAX_CNAME_HOPS.
 * `error`: the lookup of the hop after the last one failed (inconclusive).
 */
export interface CnameChain {
  records?: string[];
  complete?: boolean;
  error?: string;
}

/** `txt`: the TXT records at `_custom-domain-challenge.<hostname>`, each as its joined character strings. */
export function evaluateOwnership(hostname: string, challengeToken: string, txt: DnsAnswer<string>): CheckOutcome<'ownership'> {
  const name = challengeRecordName(hostname);
  const expected = challengeRecordValue(challengeToken);
  if ('error' in txt) return inconclusive('txt_record_not_found', `The TXT lookup of ${name} failed (${txt.error}).`);
  if (txt.records.length === 0) return failing('txt_record_not_found', `No TXT record found at ${name}; expected "${expected}".`);
  if (txt.records.some((value) => value.trim() === expected)) return passing();
  const found = txt.records.map((value) => `"${value}"`).join(', ');
  return failing('txt_record_mismatch', `The TXT record at ${name} holds ${found}, expected "${expected}".`);
}

/**
 * Passes when the chain reaches the edge target; a lookup that failed before
 * it did is inconclusive, whatever hop it was.
 */
export function evaluateRouting(hostname: string, edgeTarget: string, lookup: CnameChain): CheckOutcome<'routing'> {
  const chain = lookup.records ?? [];
  if (chain.some((target) => sameDnsName(target, edgeTarget))) return passing();
  const shown = (name: string) => name.toLowerCase().replace(/\.$/, '');
  if (lookup.error !== undefined) {
    const at = chain.length === 0 ? hostname : shown(chain[chain.length - 1] as string);
    return inconclusive('cname_not_found', `The CNAME lookup of ${at} failed (${lookup.error}).`);
  }
  const first = chain[0];
  if (first === undefined) return failing('cname_not_found', `No CNAME record found at ${hostname}; expected a CNAME to ${edgeTarget}.`);
  const last = chain[chain.length - 1] as string;
  if (lookup.complete === false) {
    return failing('cname_target_mismatch', `The CNAME chain of ${hostname} is longer than ${MAX_CNAME_HOPS} hops without reaching ${edgeTarget}.`);
  }
  const via = chain.length > 1 ? ` (via ${chain.slice(0, -1).map(shown).join(' -> ')})` : '';
  return failing('cname_target_mismatch', `CNAME points to ${shown(last)}${via}, expected ${edgeTarget}.`);
}

/** The A and AAAA answers at an apex domain: what the resolver returns, after any CNAME or ALIAS flattening. */
export interface AddressAnswers {
  a: DnsAnswer<string>;
  aaaa: DnsAnswer<string>;
}

/** One written form per address (IPv6 answers may come compressed differently). */
function addressKey(address: string): string {
  return ipaddr.isValid(address) ? ipaddr.parse(address).toNormalizedString() : address.toLowerCase();
}

/**
 * The routing check of an apex domain (DECISIONS §12): passes when its A and
 * AAAA answers are not both empty and every address is an edge address. An
 * address outside the set is conclusive whatever the other lookup did; a
 * failed lookup otherwise leaves the answer unknown (inconclusive).
 */
export function evaluateAddressRouting(hostname: string, edgeAddresses: readonly string[], answers: AddressAnswers): CheckOutcome<'routing'> {
  const edge = new Set(edgeAddresses.map(addressKey));
  const expected = edgeAddresses.join(', ');
  const found = [answers.a, answers.aaaa].flatMap((answer) => ('records' in answer ? answer.records : []));
  const foreign = [...new Set(found.filter((address) => !edge.has(addressKey(address))))];
  if (foreign.length > 0) {
    const which = foreign.length === 1 ? 'an address' : 'addresses';
    return failing('address_mismatch', `${hostname} resolves to ${foreign.join(', ')}, ${which} outside this service's edge; expected only ${expected}.`);
  }
  const lookups = [['A', answers.a], ['AAAA', answers.aaaa]] as const;
  for (const [type, answer] of lookups) {
    if ('error' in answer) return inconclusive('address_not_found', `The ${type} lookup of ${hostname} failed (${answer.error}).`);
  }
  if (found.length === 0) return failing('address_not_found', `No A or AAAA record found at ${hostname}; expected ${expected}.`);
  return passing();
}

export const CERTIFICATE_WAITING_MESSAGE = 'The certificate waits for the ownership and routing checks to pass.';
export const CERTIFICATE_ISSUING_MESSAGE = 'The certificate is being issued.';
/** How the passing certificate check of a still valid certificate whose renewal failed begins (DECISIONS §11). */
export const RENEWAL_FAILED_PREFIX = 'The renewal failed at ';

/** The certificate check before any issuance: pending until ownership and routing pass. */
export function certificateGate(ownership: CheckOutcome, routing: CheckOutcome, delegated = false): CheckOutcome<'certificate'> | null {
  // DECISIONS §13: with the challenge delegated, the certificate comes by DNS-01 before the traffic moves.
  if (ownership.status === 'passing' && (routing.status === 'passing' || delegated)) return null;
  return { status: 'pending', errorCode: null, message: CERTIFICATE_WAITING_MESSAGE };
}

/** Whether the CNAME chain of `_acme-challenge.<hostname>` reaches `target`, the domain's name in ACME_DNS_ZONE (DECISIONS §13). */
export function acmeChallengeDelegated(lookup: CnameChain, target: string): boolean {
  return (lookup.records ?? []).some((name) => sameDnsName(name, target));
}

/** The certificate the hostname has (if any) at `now`. */
export function evaluateCertificate(certificate: { notAfter: Date } | null, now: Date): CheckOutcome<'certificate'> | null {
  if (certificate === null) return null;
  if (certificate.notAfter.getTime() <= now.getTime()) {
    return failing('certificate_expired', `The certificate expired at ${certificate.notAfter.toISOString()}.`);
  }
  return passing();
}

/** What the origin probe saw: no active origin, or a probe result (`reason` as libs/outbound PROBE_FAILURE). */
export type OriginObservation =
  | { kind: 'no_active_origin' }
  | { kind: 'probed'; target: string; ok: true; statusCode: number }
  | { kind: 'probed'; target: string; ok: false; reason: string; message: string; statusCode?: number };

export function evaluateOrigin(observation: OriginObservation): CheckOutcome<'origin'> {
  if (observation.kind === 'no_active_origin') return failing('no_active_origin', 'The application has no active origin.');
  if (observation.ok) return passing();
  // Every probe failure may be a deploy or a blip of the origin: none is conclusive.
  const detail = `GET ${observation.target}: ${observation.message}.`;
  if (observation.reason === 'tls_error') return inconclusive('origin_tls_error', detail);
  if (observation.reason === 'error_status') return inconclusive('origin_error_status', detail);
  return inconclusive('origin_unreachable', detail);
}
