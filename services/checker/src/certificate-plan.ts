// The certificate check of a run's first step: judge the certificate the
// domain has, and say whether one must be issued (none yet, or renewal due).
// Issuing happens after the step is recorded, so the DNS checks of other
// domains never wait for a certificate order.
import { CERTIFICATE_ISSUING_MESSAGE, certificateGate, evaluateCertificate, type CheckOutcome } from '@cds/core';
import type { CertificateRow } from '@cds/data';

export interface CertificatePlan {
  outcome: CheckOutcome<'certificate'>;
  /** Issue a certificate after this step. */
  issue: boolean;
  /** The notAfter of the certificate the domain serves with now; null without one or without both DNS checks (no traffic reaches it). */
  notAfter: Date | null;
}

/**
 * `existing`: the hostname's certificate when it was issued to this domain;
 * `renewalDue`: whether it should be replaced now (renewal.ts).
 */
export function planCertificate(
  ownership: CheckOutcome, routing: CheckOutcome, existing: CertificateRow | null, renewalDue: boolean, now: Date,
): CertificatePlan {
  const gate = certificateGate(ownership, routing);
  // Without both DNS checks an existing certificate is only judged, never renewed.
  if (gate) return { outcome: (existing && evaluateCertificate(existing, now)) || gate, issue: false, notAfter: null };
  if (!existing) return { outcome: { status: 'pending', errorCode: null, message: CERTIFICATE_ISSUING_MESSAGE }, issue: true, notAfter: null };
  return { outcome: evaluateCertificate(existing, now) as CheckOutcome<'certificate'>, issue: renewalDue, notAfter: existing.notAfter };
}
