// The certificate check of a run's first step: judge the certificate the
// domain has, and say whether one must be issued (none yet, or renewal due).
// Issuing happens after the step is recorded, so the DNS checks of other
// domains never wait for a certificate order.
import { ACME_BUDGET_WAIT_PREFIX, CERTIFICATE_ISSUING_MESSAGE, certificateGate, evaluateCertificate, RENEWAL_FAILED_PREFIX, type CertIssuer, type CheckOutcome } from '@cds/core';
import type { CertificateRow } from '@cds/data';

export interface CertificatePlan {
  outcome: CheckOutcome<'certificate'>;
  /** Issue a certificate after this step. */
  issue: boolean;
  /** The notAfter of the certificate the domain serves with now; null without one or without both DNS checks (no traffic reaches it). */
  notAfter: Date | null;
}

/** The certificate check as a run left it. */
export type PreviousCertificateCheck = Pick<CheckOutcome, 'status' | 'message'>;

/** The certificate check's message when it says the first certificate waits for ACME order budget; else null. */
function budgetWait(check: PreviousCertificateCheck | null): string | null {
  return check?.status === 'pending' && check.message?.startsWith(ACME_BUDGET_WAIT_PREFIX) ? check.message : null;
}

/** What this deployment issues with now: CERT_ISSUER, and for `acme` the directories of ACME_DIRECTORY_URL. */
export interface IssuingSetup {
  issuer: CertIssuer;
  directories: readonly string[];
}

/** Why a certificate is issued again before its renewal is due. */
export type ReissueReason = 'requested' | 'issuer_changed' | 'directory_changed';

/**
 * Whether a certificate must be issued again whatever its lifetime: the
 * operator asked for it (`cdctl certificate renew`), or it comes from an
 * issuer or ACME directory no longer configured (staging to production,
 * internal to ACME). An `acme` certificate kept without its directory (issued
 * before directories were kept) came from the one directory there was and is
 * not judged by it. The order budget paces these orders like any other.
 */
export function reissueReason(existing: CertificateRow, setup: IssuingSetup): ReissueReason | null {
  if (existing.renewRequestedAt) return 'requested';
  if (existing.issuer !== setup.issuer) return 'issuer_changed';
  if (existing.issuer === 'acme' && existing.directoryUrl && !setup.directories.includes(existing.directoryUrl)) return 'directory_changed';
  return null;
}

/**
 * `existing`: the hostname's certificate when it was issued to this domain;
 * `renewalDue`: whether it should be replaced now (renewal.ts); `previous`:
 * the certificate check as the last run left it; `delegated`: the domain's
 * `_acme-challenge` CNAME reaches its name in ACME_DNS_ZONE, so the
 * certificate is issued by DNS-01 whether routing passes or not (DECISIONS §13).
 */
export function planCertificate(
  ownership: CheckOutcome, routing: CheckOutcome, existing: CertificateRow | null, renewalDue: boolean, now: Date, previous: PreviousCertificateCheck | null = null, delegated = false,
): CertificatePlan {
  const gate = certificateGate(ownership, routing, delegated);
  // Without both DNS checks an existing certificate is only judged, never renewed.
  if (gate) return { outcome: (existing && evaluateCertificate(existing, now)) || gate, issue: false, notAfter: null };
  if (!existing) {
    // A certificate waiting for budget keeps saying so while its next try asks for a slot: the check
    // does not flip to "being issued" and back at every run of the hour.
    return { outcome: { status: 'pending', errorCode: null, message: budgetWait(previous) ?? CERTIFICATE_ISSUING_MESSAGE }, issue: true, notAfter: null };
  }
  const outcome = evaluateCertificate(existing, now) as CheckOutcome<'certificate'>;
  // A renewal tried again keeps saying that the last try failed until one succeeds.
  const failedRenewal = renewalDue && outcome.status === 'passing' && previous?.status === 'passing' && previous.message?.startsWith(RENEWAL_FAILED_PREFIX) ? previous.message : null;
  // Before routing passes no traffic reaches the certificate: nothing to watch expire.
  return { outcome: failedRenewal ? { ...outcome, message: failedRenewal } : outcome, issue: renewalDue, notAfter: routing.status === 'passing' ? existing.notAfter : null };
}
