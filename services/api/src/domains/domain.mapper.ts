import { CHECK_TYPES, dnsRecords, isoTimestamp } from '@cds/core';
import type { CheckRow, DomainRow } from '@cds/data';

export interface CheckResource {
  type: string;
  status: string;
  error_code: string | null;
  message: string | null;
  observed_at: string | null;
  next_check_at: string | null;
}

export interface DomainResource {
  id: string;
  hostname: string;
  reference: string;
  status: string;
  dns_records: ReturnType<typeof dnsRecords>;
  checks: CheckResource[];
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

function toCheckResource(type: string, row: CheckRow | undefined): CheckResource {
  if (!row) return { type, status: 'pending', error_code: null, message: null, observed_at: null, next_check_at: null };
  return {
    type,
    status: row.status,
    error_code: row.status === 'failing' ? row.errorCode : null,
    message: row.message,
    observed_at: isoTimestamp(row.observedAt),
    next_check_at: isoTimestamp(row.nextCheckAt),
  };
}

/** The Domain resource: four checks in contract order; no records once deletion was requested. */
export function toDomainResource(domain: DomainRow, checks: readonly CheckRow[], edgeTarget: string): DomainResource {
  return {
    id: domain.id,
    hostname: domain.hostname,
    reference: domain.reference,
    status: domain.status,
    dns_records: domain.deletedAt ? [] : dnsRecords(domain.hostname, domain.challengeToken, edgeTarget),
    checks: CHECK_TYPES.map((type) => toCheckResource(type, checks.find((c) => c.type === type))),
    metadata: domain.metadata,
    created_at: isoTimestamp(domain.createdAt) as string,
    updated_at: isoTimestamp(domain.updatedAt) as string,
    deleted_at: isoTimestamp(domain.deletedAt),
  };
}
