import { IsNull, Not, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { numberFromDb, queryRows, timestampFromDb, type RawRow } from '../sql';
import type { RecentRun } from './check-runs.types';
import type { DomainLookupRepository } from './domain-lookup.types';
import type { DomainRow } from './domains.types';
import { runChecksFromText } from './run-checks-text';

// By the primary key (domain_id, slot): ten rows at most.
const RECENT_RUNS = `SELECT slot, started_at, duration_ms, trigger, status_before, status_after, checks
  FROM domain_check_runs WHERE domain_id = :domainId ORDER BY started_at DESC, slot DESC`;

function runFromDb(raw: RawRow): RecentRun {
  return {
    slot: numberFromDb(raw.slot),
    startedAt: timestampFromDb(raw.started_at),
    durationMs: numberFromDb(raw.duration_ms),
    trigger: raw.trigger as RecentRun['trigger'],
    statusBefore: raw.status_before as RecentRun['statusBefore'],
    statusAfter: raw.status_after as RecentRun['statusAfter'],
    checks: runChecksFromText(String(raw.checks)),
  };
}

export class TypeOrmDomainLookupRepository implements DomainLookupRepository {
  private readonly domains: Repository<DomainRow>;

  constructor(private readonly manager: EntityManager) {
    this.domains = manager.getRepository<DomainRow>(ENTITY.domain);
  }

  latestDeleted(hostname: string): Promise<DomainRow | null> {
    return this.domains.findOne({ where: { hostname, deletedAt: Not(IsNull()) }, order: { deletedAt: 'DESC', createdAt: 'DESC', id: 'DESC' } });
  }

  async recentRuns(domainId: string): Promise<RecentRun[]> {
    return (await queryRows<RawRow>(this.manager, RECENT_RUNS, { domainId })).map(runFromDb);
  }
}
