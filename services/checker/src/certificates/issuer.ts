// What a certificate issuer gives the checker: a leaf for one hostname.
import type { CertIssuer } from '@cds/core';
import type { RenewalWindow } from '@cds/core';

export interface IssuedCertificate {
  /** PEM, leaf first, then the chain up to (not always including) the root. */
  pemChain: string;
  /** PKCS#8 PEM of the leaf's ECDSA P-256 key; sealed before it is stored. */
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
}

/** A refusal the certificate check reports with its own code (DECISIONS §2). */
export class IssuanceError extends Error {
  constructor(
    readonly code: 'certificate_issuance_failed' | 'caa_forbids_issuance',
    message: string,
  ) {
    super(message);
    this.name = 'IssuanceError';
  }
}

export interface CertificateIssuer {
  readonly kind: CertIssuer;
  /** Loads (or creates) what issuing needs, at start-up: a broken setup fails the start, not the first order. */
  prepare?(): Promise<void>;
  /**
   * `replacing`: the PEM chain of the certificate a renewal replaces (null for a first issue);
   * `applicationId`: the domain's application, whose ACME order budget the order uses.
   */
  issue(hostname: string, replacing: string | null, applicationId: string): Promise<IssuedCertificate>;
  /** Told once a certificate `issue` gave is stored, so that nothing of its order is kept for a later try. */
  certificateStored?(hostname: string): Promise<void>;
  /** The CA's suggested renewal window for a certificate it issued (ACME Renewal Information), when it offers one. */
  renewalWindow?(pemChain: string): Promise<RenewalWindow | null>;
}
