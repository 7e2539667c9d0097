import { createHash, X509Certificate } from 'node:crypto';
import { isoTimestamp, renewalAfter, type CertIssuer, type DomainResource, type RunTrigger } from '@cds/core';
import type { CertificateRow, RecentRun } from '@cds/data';

export interface CertificateResource {
  issuer: CertIssuer;
  directory_url: string | null;
  serial: string | null;
  not_before: string;
  not_after: string;
  renewal_after: string;
  fingerprint_sha256: string | null;
}

export interface CheckRunResource {
  started_at: string;
  duration_ms: number;
  trigger: RunTrigger;
  checks: Array<{ type: string; status: string; error_code: string | null; message: string | null }>;
  status_before: string;
  status_after: string;
}

export interface DomainLookupResource extends DomainResource {
  application: string;
  certificate: CertificateResource | null;
  recent_runs: CheckRunResource[];
}

/** The leaf of a PEM chain (the first certificate): its serial and the SHA-256 of its DER, lowercase hex; null when it cannot be read. */
export function leafIdentity(pemChain: string): { serial: string; fingerprintSha256: string } | null {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(pemChain);
  } catch {
    return null;
  }
  return { serial: leaf.serialNumber.toLowerCase(), fingerprintSha256: createHash('sha256').update(leaf.raw).digest('hex') };
}

/**
 * A hostname's certificate with the ACME directory that issued it (DECISIONS §14); `firstDirectoryUrl`
 * names it for an `acme` certificate issued before that was kept, when there was one directory.
 * Renewal by §11's rule (no CA window is stored).
 */
export function toCertificateResource(row: CertificateRow, firstDirectoryUrl: string): CertificateResource {
  const leaf = leafIdentity(row.pemChain);
  return {
    issuer: row.issuer,
    directory_url: row.issuer === 'acme' ? (row.directoryUrl ?? firstDirectoryUrl) : null,
    serial: leaf?.serial ?? null,
    not_before: isoTimestamp(row.notBefore),
    not_after: isoTimestamp(row.notAfter),
    renewal_after: isoTimestamp(renewalAfter(row, null)),
    fingerprint_sha256: leaf?.fingerprintSha256 ?? null,
  };
}

export function toCheckRunResource(run: RecentRun): CheckRunResource {
  return {
    started_at: isoTimestamp(run.startedAt),
    duration_ms: run.durationMs,
    trigger: run.trigger,
    checks: run.checks.map((c) => ({ type: c.type, status: c.status, error_code: c.errorCode, message: c.message })),
    status_before: run.statusBefore,
    status_after: run.statusAfter,
  };
}

/** The operator's view of a domain (DECISIONS §15): its resource, its application's slug, its certificate and its recent runs. */
export function toDomainLookupResource(
  domain: DomainResource,
  applicationSlug: string,
  certificate: CertificateResource | null,
  runs: readonly RecentRun[],
): DomainLookupResource {
  return { ...domain, application: applicationSlug, certificate, recent_runs: runs.map(toCheckRunResource) };
}
