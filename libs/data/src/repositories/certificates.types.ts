// Issued certificates, one per hostname (migration 1760000000300).
import type { CertIssuer } from '@cds/core';

export interface CertificateRow {
  hostname: string;
  domainId: string;
  issuer: CertIssuer;
  pemChain: string; // leaf first
  keySealed: string; // PKCS#8 PEM sealed with DATA_ENCRYPTION_KEY for SEAL_PURPOSES.certificateKey and the hostname
  notBefore: Date;
  notAfter: Date;
  createdAt: Date;
  /** The ACME directory that issued it (migration 1795844000000); read back absent for `internal`, and for certificates issued before it was kept. */
  directoryUrl?: string | null;
  /** When the operator asked for it to be issued again (migration 1795844100000); absent when not asked. Storing a new certificate clears it. */
  renewRequestedAt?: Date | null;
}

/** Which certificates a renewal request marks: one hostname's, or all (of one issuer, of one ACME directory). */
export type RenewRequestScope = { hostname: string } | { issuer?: CertIssuer; directoryUrl?: string };

/** A certificate marked for re-issue, and its domain. */
export interface RenewRequested {
  hostname: string;
  domainId: string;
  applicationId: string;
}

/** An application's certificates due for renewal (see CertificatesRepository.renewalsDue). */
export interface RenewalsDue {
  applicationId: string;
  due: number;
}

export interface CertificatesRepository {
  find(hostname: string): Promise<CertificateRow | null>;
  /** The certificates of these hostnames (those that have one). */
  findMany(hostnames: string[]): Promise<CertificateRow[]>;
  /** Inserts or replaces the hostname's certificate. */
  save(row: CertificateRow): Promise<void>;
  delete(hostname: string): Promise<void>;
  /**
   * Per application, the certificates due for renewal at `now` (two thirds of
   * their lifetime passed) that the checker will renew: those of live domains,
   * issued to the domain, whose ownership and routing checks pass.
   */
  renewalsDue(now: Date): Promise<RenewalsDue[]>;
  /**
   * Marks for re-issue the certificates of live domains issued to them that
   * `scope` names (`directoryUrl` matches certificates of that directory; one
   * kept without a directory is not matched), and makes their domains due for
   * a check at `at`. Returns those marked, by hostname.
   */
  requestRenewal(scope: RenewRequestScope, at: Date): Promise<RenewRequested[]>;
  /** Removes the certificates of deleted domains (background clean-up); returns their hostnames. */
  deleteOfDeletedDomains(): Promise<string[]>;
}
