// Pure evaluation of the four checks (DECISIONS §2): DNS answers and probe
// results in, {status, error_code, message} out. The checker does the I/O.
import { challengeRecordName, challengeRecordValue } from './dns-records';
import type { CheckErrorCode, CheckStatus, CheckType, LiveDomainStatus } from './domain-status';

/** CNAME hops followed before the chain is given up. */
export const MAX_CNAME_HOPS = 8;

export interface CheckOutcome<T extends CheckType = CheckType> {
  status: CheckStatus;
  errorCode: CheckErrorCode<T> | null;
  message: string | null;
}

const passing = <T extends CheckType>(): CheckOutcome<T> => ({ status: 'passing', errorCode: null, message: null });
const failing = <T extends CheckType>(errorCode: CheckErrorCode<T>, message: string): CheckOutcome<T> => ({ status: 'failing', errorCode, message });

/** DNS names compare case-insensitively, with the trailing dot ignored. */
export function sameDnsName(a: string, b: string): boolean {
  return a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');
}

/** A DNS answer: the records found (empty when the name has none), or the lookup error of a failure other than "no such record". */
export type DnsAnswer<T> = { records: T[] } | { error: string };

/** `txt`: the TXT records at `_custom-domain-challenge.<hostname>`, each as its joined character strings. */
export function evaluateOwnership(hostname: string, challengeToken: string, txt: DnsAnswer<string>): CheckOutcome<'ownership'> {
  const name = challengeRecordName(hostname);
  const expected = challengeRecordValue(challengeToken);
  if ('error' in txt) return failing('txt_record_not_found', `The TXT lookup of ${name} failed (${txt.error}).`);
  if (txt.records.length === 0) return failing('txt_record_not_found', `No TXT record found at ${name}; expected "${expected}".`);
  if (txt.records.some((value) => value.trim() === expected)) return passing();
  const found = txt.records.map((value) => `"${value}"`).join(', ');
  return failing('txt_record_mismatch', `The TXT record at ${name} holds ${found}, expected "${expected}".`);
}

/**
 * `chain`: the CNAME targets followed from the hostname, in order (empty: no
 * CNAME); `complete` is false when the chain went on past MAX_CNAME_HOPS.
 * It passes when the chain reaches the edge target.
 */
export function evaluateRouting(
  hostname: string,
  edgeTarget: string,
  lookup: DnsAnswer<string> & { complete?: boolean },
): CheckOutcome<'routing'> {
  if ('error' in lookup) return failing('cname_not_found', `The CNAME lookup of ${hostname} failed (${lookup.error}).`);
  const chain = lookup.records;
  const first = chain[0];
  if (first === undefined) return failing('cname_not_found', `No CNAME record found at ${hostname}; expected a CNAME to ${edgeTarget}.`);
  if (chain.some((target) => sameDnsName(target, edgeTarget))) return passing();
  const shown = (name: string) => name.toLowerCase().replace(/\.$/, '');
  const last = chain[chain.length - 1] as string;
  if (lookup.complete === false) {
    return failing('cname_target_mismatch', `The CNAME chain of ${hostname} is longer than ${MAX_CNAME_HOPS} hops without reaching ${edgeTarget}.`);
  }
  const via = chain.length > 1 ? ` (via ${chain.slice(0, -1).map(shown).join(' -> ')})` : '';
  return failing('cname_target_mismatch', `CNAME points to ${shown(last)}${via}, expected ${edgeTarget}.`);
}

export const CERTIFICATE_WAITING_MESSAGE = 'The certificate waits for the ownership and routing checks to pass.';
export const CERTIFICATE_ISSUING_MESSAGE = 'The certificate is being issued.';

/** The certificate check before any issuance: pending until ownership and routing pass. */
export function certificateGate(ownership: CheckOutcome, routing: CheckOutcome): CheckOutcome<'certificate'> | null {
  if (ownership.status === 'passing' && routing.status === 'passing') return null;
  return { status: 'pending', errorCode: null, message: CERTIFICATE_WAITING_MESSAGE };
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
  const detail = `GET ${observation.target}: ${observation.message}.`;
  if (observation.reason === 'tls_error') return failing('origin_tls_error', detail);
  if (observation.reason === 'error_status') return failing('origin_error_status', detail);
  return failing('origin_unreachable', detail);
}

/** The domain's delay until its next automatic check, after `checksDone` runs (this one included). */
export function nextCheckDelayMs(status: LiveDomainStatus, checksDone: number, schedulePending: readonly number[], intervalLive: number): number {
  if (status !== 'pending_dns') return intervalLive;
  const index = Math.min(Math.max(checksDone - 1, 0), schedulePending.length - 1);
  return schedulePending[index] ?? intervalLive;
}
