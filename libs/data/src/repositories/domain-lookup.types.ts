// What the operator's domain lookup (DECISIONS §15) reads besides the domain's
// own rows: a deleted domain by its hostname, and a domain's recent check runs
// (migration 1760000001000). Deployment-wide reads: the operator looks across
// applications.
import type { RecentRun } from './check-runs.types';
import type { DomainRow } from './domains.types';

export interface DomainLookupRepository {
  /**
   * The domain of `hostname` deleted last, whatever its application, or null
   * (the live one is DomainsRepository.findLiveByHostname).
   */
  latestDeleted(hostname: string): Promise<DomainRow | null>;
  /** The domain's kept check runs (at most ten), newest first. */
  recentRuns(domainId: string): Promise<RecentRun[]>;
}
