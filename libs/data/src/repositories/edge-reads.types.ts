// What the edges read (DECISIONS §5): one hostname's route, the change feed,
// the set of live hostnames and ACME HTTP-01 answers (migration 1760000000800).
import type { ApplicationStatus, DomainStatus, Limits } from '@cds/core';

/** A live domain with its live application and that application's active origin (null when none). */
export interface EdgeRouteRow {
  domainId: string;
  hostname: string;
  reference: string;
  status: DomainStatus;
  applicationId: string;
  slug: string;
  applicationStatus: ApplicationStatus;
  limits: Limits;
  originUrl: string | null;
}

/**
 * One changed row: `domain` and `certificate` name a hostname; `application`,
 * `origin` and `assertion_key` an application id. `live` (domains only): the
 * hostname has a live domain now, whichever row changed.
 */
export interface EdgeChange {
  kind: 'domain' | 'certificate' | 'application' | 'origin' | 'assertion_key';
  key: string;
  changedAt: Date;
  live?: boolean;
}

export interface EdgeChanges {
  /** The database's clock when it read them. */
  readAt: Date;
  changes: EdgeChange[];
}

export interface EdgeReadsRepository {
  /** The live domain of `hostname` and what serving it needs, in one query; null when none (or being deleted, or its application is gone). */
  route(hostname: string): Promise<EdgeRouteRow | null>;
  /** Rows whose `changed_at` is after `since`, in one query; none (the clock alone) when `since` is null. */
  changesSince(since: Date | null): Promise<EdgeChanges>;
  /** Live hostnames after `after` in hostname order, at most `limit`. */
  liveHostnames(after: string, limit: number): Promise<string[]>;
  /** Key authorizations of those of `tokens` that exist. */
  challenges(tokens: string[]): Promise<Map<string, string>>;
}
