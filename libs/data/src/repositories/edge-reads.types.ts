// What the edges read (DECISIONS §5): one hostname's route, the change feed,
// the set of live hostnames and ACME HTTP-01 answers (migrations 1760000000800
// and 1795843860000).
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
  /** The hostname every request is redirected to (DECISIONS §12); null when unset. */
  redirectTo: string | null;
}

/**
 * What one read of the change feed saw, in the order the database makes
 * changes visible: a change stamped below `xmin` had ended before the read; of
 * those from `xmin` up to `xmax`, all but the ones in `xip` too; the others
 * (in `xip`, or from `xmax` on) had not. PostgreSQL: the read's snapshot over
 * transaction ids. SQLite (one writer at a time, commits in the order of the
 * writes): `xmin` = `xmax` = one past the change counter the read saw, `xip` empty.
 */
export interface FeedSnapshot {
  xmin: bigint;
  xmax: bigint;
  xip: bigint[];
}

/**
 * One changed row: `domain` and `certificate` name a hostname; `application`,
 * `origin` and `assertion_key` an application id. `stamp`: the writing
 * transaction's id (PostgreSQL) or the change's number (SQLite). `live`
 * (domains only): the hostname has a live domain now, whichever row changed.
 */
export interface EdgeChange {
  kind: 'domain' | 'certificate' | 'application' | 'origin' | 'assertion_key';
  key: string;
  stamp: bigint;
  live?: boolean;
}

export interface EdgeChanges {
  /** What this read saw: the next one asks for what was not visible to it. */
  snapshot: FeedSnapshot;
  changes: EdgeChange[];
}

export interface EdgeReadsRepository {
  /** The live domain of `hostname` and what serving it needs, in one query; null when none (or being deleted, or its application is gone). */
  route(hostname: string): Promise<EdgeRouteRow | null>;
  /**
   * In one query, rows changed by writers whose changes `seen` did not show and this read does: none (the
   * snapshot alone) when `seen` is null. A change is read once however late its commit.
   */
  changesSince(seen: FeedSnapshot | null): Promise<EdgeChanges>;
  /** Live hostnames after `after` in hostname order, at most `limit`. */
  liveHostnames(after: string, limit: number): Promise<string[]>;
}
