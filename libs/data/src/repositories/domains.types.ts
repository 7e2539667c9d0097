// The domains aggregate: a domain and its four check rows, registered under
// its application's live-domain limit.
import type { CheckStatus, CheckType, DomainStatus } from '@cds/core';
import type { OutboxMessage } from './outbox.types';

export type MetadataValue = string | number | boolean | null;

export interface DomainRow {
  id: string;
  applicationId: string;
  hostname: string;
  reference: string;
  status: DomainStatus;
  challengeToken: string;
  metadata: Record<string, MetadataValue>;
  /** The live domain of the same application every request is redirected to (DECISIONS §12); null when unset. */
  redirectTo: string | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  nextCheckAt: Date | null; // when the scheduler should check it again
}

export interface CheckRow {
  domainId: string;
  type: CheckType;
  status: CheckStatus;
  errorCode: string | null;
  message: string | null;
  observedAt: Date | null;
  nextCheckAt: Date | null;
  /**
   * The check's streak of failed runs while its domain is `ready` (DECISIONS
   * §11): how many in a row, since when, and whether any was inconclusive.
   * Absent on rows that never failed there (read as 0, null, false).
   */
  failedRuns?: number;
  failingSince?: Date | null;
  inconclusive?: boolean;
}

export interface DomainListFilter {
  reference?: string;
  status?: DomainStatus;
  includeDeleted: boolean;
  limit: number;
  offset: number;
}

/** Whether `register` wrote the domain; when not, the application's live domains at that moment. */
export type RegisterOutcome = { admitted: true } | { admitted: false; live: number };

export interface DomainsRepository {
  /**
   * Registers a domain in one atomic write: the domain, its check rows and the
   * outbox messages that announce it, admitted only while its application has
   * fewer than `limit` live domains (the application's count of live domains
   * goes up with it). Live-hostname clash: throws UniqueViolation.
   */
  register(domain: DomainRow, checks: CheckRow[], opts: { limit: number; messages: OutboxMessage[] }): Promise<RegisterOutcome>;
  /** `register` without a limit or messages (fixtures and imports). */
  insert(domain: DomainRow, checks: CheckRow[]): Promise<void>;
  /**
   * Deletes a live domain: status `deleting`, `deleted_at` set (its hostname is
   * free at once), counted out of its application's live domains. Callers lock
   * the application first, the order creates take. False when it was not live.
   */
  markDeleted(applicationId: string, id: string, at: Date): Promise<boolean>;
  find(applicationId: string, id: string, includeDeleted: boolean): Promise<DomainRow | null>;
  list(applicationId: string, filter: DomainListFilter): Promise<DomainRow[]>; // created_at, id ascending
  checksOf(domainIds: string[]): Promise<CheckRow[]>;
  /** Live domains of the application, counted in the domains table (ApplicationRow.liveDomains keeps the same number). */
  countLive(applicationId: string): Promise<number>;
  /** Live domains of the deployment (the sum of ApplicationRow.liveDomains). */
  countLiveAll(): Promise<number>;
  findLiveByHostname(hostname: string): Promise<DomainRow | null>;
  update(applicationId: string, id: string, patch: Partial<Omit<DomainRow, 'id' | 'applicationId' | 'deletedAt'>>): Promise<void>;
  /** Every live domain of the application (for application deletion). */
  listLive(applicationId: string): Promise<DomainRow[]>;
}
