// The checker's leases on domains and what a check run writes (migration 1760000000300).
import type { DomainStatus, LiveDomainStatus, RunCheck, RunTrigger } from '@cds/core';
import type { CertificateRow } from './certificates.types';
import type { CheckRow, DomainRow } from './domains.types';
import type { OutboxMessage } from './outbox.types';

/** A domain a checker holds the lease of. */
export interface LeasedDomain {
  /** The domain as it was when leased. */
  domain: DomainRow;
  /** Check runs completed before this one. */
  checkCount: number;
  /** Runs since the one that entered its status (0 for that one). */
  statusRuns: number;
  /** Its check rows when leased, ownership → origin. */
  checks: CheckRow[];
  /** The certificate its hostname has (maybe issued to an earlier domain of that hostname). */
  certificate: CertificateRow | null;
  /** Its application had an active origin when leased: without one the origin check probes nothing. */
  hasActiveOrigin: boolean;
}

/** What one step of a check run writes for a leased domain (CheckRunsRepository.record). */
export interface CheckRunRecord {
  domainId: string;
  /**
   * When the run began. A `next_check_at` written after it (a manual recheck
   * meanwhile) is kept when it is sooner than `nextCheckAt`.
   */
  startedAt: Date;
  status: LiveDomainStatus;
  nextCheckAt: Date;
  updatedAt: Date;
  /** Counts a completed run (check_count + 1): the first step of a run does. */
  counted: boolean;
  /** The lease goes on until then (more of the run follows); null ends it. */
  leaseUntil: Date | null;
  /** Check rows written (insert or replace). */
  checks: CheckRow[];
  certificate: CertificateRow | null;
  messages: OutboxMessage[];
  /** The run's row among the domain's recent runs (DECISIONS §15): each step of a run writes its slot again. */
  run: RecentRun;
}

/** One of the last runs of a domain, kept in a ring of slots (table domain_check_runs). */
export interface RecentRun {
  /** The run's number (runs before it) modulo the slots kept. */
  slot: number;
  startedAt: Date;
  durationMs: number;
  trigger: RunTrigger;
  statusBefore: DomainStatus;
  statusAfter: DomainStatus;
  /** What the run saw, ownership → origin. */
  checks: RunCheck[];
}

export interface CheckRunsRepository {
  /**
   * Leases up to `limit` live domains due at `now` (next_check_at <= now) whose
   * lease is free or expired, to `leasedBy` until `leaseUntil`, oldest due
   * first, with their check rows and certificates (PostgreSQL: one statement,
   * FOR UPDATE SKIP LOCKED).
   */
  claimDue(now: Date, limit: number, leasedBy: string, leaseUntil: Date): Promise<LeasedDomain[]>;
  /** Leases one live domain unless another checker holds an unexpired lease; null when not taken. */
  claim(domainId: string, now: Date, leasedBy: string, leaseUntil: Date): Promise<LeasedDomain | null>;
  /** Extends the leases this checker still holds (a heartbeat for long runs); returns the ids still held. */
  extend(domainIds: string[], leasedBy: string, leaseUntil: Date): Promise<string[]>;
  /** Ends leases without counting a run. */
  release(domainIds: string[], leasedBy: string): Promise<void>;
  /**
   * Writes the records of domains this checker still holds and that are still
   * live, each with its check rows, certificate and outbox messages; records of
   * the others (deleted meanwhile, lease lost) are dropped. Returns the ids
   * written. Atomic by itself (PostgreSQL: one statement; SQLite: its own
   * transaction unless called inside one).
   */
  record(records: CheckRunRecord[], leasedBy: string): Promise<string[]>;
}
