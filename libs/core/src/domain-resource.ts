// The Domain resource and the event built from it: one mapper for the API and
// the checker, so an event carries exactly what GET /v1/domains/{id} shows.
import { randomUUID } from 'node:crypto';
import { dnsRecords, type DnsRecord, type EdgeRouting } from './dns-records';
import { CHECK_TYPES, type CheckStatus, type CheckType, type DomainStatus, type EventType } from './domain-status';
import type { EventEmittedPayload } from './messages';
import { eventTimestamp, isoTimestamp } from './time';

/** The fields of a stored domain the resource needs (DomainRow fits). */
export interface DomainState {
  id: string;
  hostname: string;
  reference: string;
  status: DomainStatus;
  challengeToken: string;
  metadata: Record<string, unknown>;
  /** The hostname every request is redirected to (DECISIONS §12); null when unset. */
  redirectTo: string | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** The fields of a stored check the resource needs (CheckRow fits). */
export interface CheckState {
  type: CheckType;
  status: CheckStatus;
  errorCode: string | null;
  message: string | null;
  observedAt: Date | null;
  nextCheckAt: Date | null;
}

export interface CheckResource {
  type: CheckType;
  status: CheckStatus;
  error_code: string | null;
  message: string | null;
  observed_at: string | null;
  next_check_at: string | null;
}

/** The Domain resource of the contract; domain-resource.schema.ts is its joi schema. */
export interface DomainResource {
  id: string;
  hostname: string;
  reference: string;
  status: DomainStatus;
  dns_records: DnsRecord[];
  checks: CheckResource[];
  metadata: Record<string, unknown>;
  redirect_to: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

function toCheckResource(type: CheckType, row: CheckState | undefined): CheckResource {
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
export function toDomainResource(domain: DomainState, checks: readonly CheckState[], routing: EdgeRouting): DomainResource {
  return {
    id: domain.id,
    hostname: domain.hostname,
    reference: domain.reference,
    status: domain.status,
    dns_records: domain.deletedAt ? [] : dnsRecords(domain.hostname, domain.challengeToken, routing),
    checks: CHECK_TYPES.map((type) => toCheckResource(type, checks.find((c) => c.type === type))),
    metadata: domain.metadata,
    redirect_to: domain.redirectTo,
    created_at: isoTimestamp(domain.createdAt),
    updated_at: isoTimestamp(domain.updatedAt),
    deleted_at: isoTimestamp(domain.deletedAt),
  };
}

/** Payload of an `event.emitted` message: the webhook event body plus its application. */
export function domainEvent(type: EventType, applicationId: string, domain: DomainResource, at: Date): EventEmittedPayload {
  return { event_id: randomUUID(), type, application_id: applicationId, created_at: eventTimestamp(at), data: { domain } };
}
