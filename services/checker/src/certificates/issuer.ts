// What a certificate issuer gives the checker: a leaf for one hostname.
import type { CertIssuer } from '@cds/core';
import type { RenewalWindow } from '@cds/core';
import type { CaFailure } from './acme-transport';

export interface IssuedCertificate {
  /** PEM, leaf first, then the chain up to (not always including) the root. */
  pemChain: string;
  /** PKCS#8 PEM of the leaf's ECDSA P-256 key; sealed before it is stored. */
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
  /** The ACME directory that issued it; absent for the internal CA. */
  directoryUrl?: string;
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

/**
 * The CA failed at its side (DECISIONS §14: unreachable, timeout, 5xx,
 * `rateLimited`, `serverInternal`, account or EAB refused): the same check
 * tries the next directory, and this one is set aside. Not for what the
 * customer's DNS or CAA records cause.
 */
export class DirectoryFailure extends IssuanceError {
  constructor(
    readonly directoryUrl: string,
    readonly reason: CaFailure,
    message: string,
  ) {
    super('certificate_issuance_failed', message);
    this.name = 'DirectoryFailure';
  }
}

export interface CertificateIssuer {
  readonly kind: CertIssuer;
  /** Loads (or creates) what issuing needs, at start-up: a broken setup fails the start, not the first order. */
  prepare?(): Promise<void>;
  /**
   * `replacing`: the PEM chain of the certificate a renewal replaces (null for a first issue);
   * `applicationId`: the domain's application, whose ACME order budget the order uses;
   * `issuedBy`: the ACME directory that issued the certificate replaced, asked first;
   * `dns01At`: the hostname's name in ACME_DNS_ZONE when its challenge is delegated there (DECISIONS §13), answered by DNS-01.
   */
  issue(hostname: string, replacing: string | null, applicationId: string, issuedBy?: string | null, dns01At?: string | null): Promise<IssuedCertificate>;
  /** Told once a certificate `issue` gave is stored, so that nothing of its order is kept for a later try. */
  certificateStored?(hostname: string): Promise<void>;
  /** The CA's suggested renewal window for a certificate it issued (ACME Renewal Information), when it offers one. */
  renewalWindow?(pemChain: string, issuedBy?: string | null): Promise<RenewalWindow | null>;
}
