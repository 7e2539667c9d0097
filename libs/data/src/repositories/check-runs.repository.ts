import type { EntityManager, Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { queryRows, updateReturning } from '../sql';
import type { CheckRow, CheckRunsRepository, DatabaseKind, LeasedDomain } from '../types';

interface LeasedRow {
  id: string;
  application_id: string;
  check_count: number | string;
}

const toLeased = (row: LeasedRow): LeasedDomain => ({ id: row.id, applicationId: row.application_id, checkCount: Number(row.check_count) });

/** A lease is free when nobody holds it or its holder let it expire (a crashed checker). */
const LEASE_FREE = '(leased_until IS NULL OR leased_until < :now)';

export class TypeOrmCheckRunsRepository implements CheckRunsRepository {
  private readonly checks: Repository<CheckRow>;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.checks = manager.getRepository<CheckRow>(ENTITY.domainCheck);
  }

  claimDue(now: Date, limit: number, leasedBy: string, leaseUntil: Date): Promise<LeasedDomain[]> {
    // Replicas skip each other's locked rows instead of waiting (PostgreSQL); the
    // lease condition is re-evaluated on the locked row version, so a lease that
    // another replica committed meanwhile is respected.
    const lock = this.kind === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    return this.updateReturning(
      `UPDATE domains SET leased_by = :leasedBy, leased_until = :leaseUntil
       WHERE id IN (SELECT id FROM domains WHERE deleted_at IS NULL AND next_check_at <= :now AND ${LEASE_FREE}
                    ORDER BY next_check_at LIMIT :limit${lock})`,
      { now, limit, leasedBy, leaseUntil },
    );
  }

  async claim(domainId: string, now: Date, leasedBy: string, leaseUntil: Date): Promise<LeasedDomain | null> {
    const [leased] = await this.updateReturning(
      `UPDATE domains SET leased_by = :leasedBy, leased_until = :leaseUntil WHERE id = :domainId AND deleted_at IS NULL AND ${LEASE_FREE}`,
      { domainId, now, leasedBy, leaseUntil },
    );
    return leased ?? null;
  }

  async finish(domainId: string, leasedBy: string): Promise<boolean> {
    const done = await this.updateReturning(
      `UPDATE domains SET leased_by = NULL, leased_until = NULL, check_count = check_count + 1 WHERE id = :domainId AND leased_by = :leasedBy`,
      { domainId, leasedBy },
    );
    return done.length > 0;
  }

  async lockDomain(domainId: string): Promise<void> {
    if (this.kind === 'postgres') await queryRows(this.manager, 'SELECT id FROM domains WHERE id = :domainId FOR UPDATE', { domainId });
  }

  async extend(domainIds: string[], leasedBy: string, leaseUntil: Date): Promise<string[]> {
    if (domainIds.length === 0) return [];
    const held = await this.updateReturning(
      `UPDATE domains SET leased_until = :leaseUntil WHERE id IN (:...domainIds) AND leased_by = :leasedBy`,
      { domainIds, leasedBy, leaseUntil },
    );
    return held.map((row) => row.id);
  }

  async release(domainId: string, leasedBy: string): Promise<void> {
    await this.updateReturning(`UPDATE domains SET leased_by = NULL, leased_until = NULL WHERE id = :domainId AND leased_by = :leasedBy`, { domainId, leasedBy });
  }

  async saveChecks(rows: CheckRow[]): Promise<void> {
    if (rows.length > 0) await this.checks.upsert(rows, ['domainId', 'type']);
  }

  private async updateReturning(update: string, params: Record<string, unknown>): Promise<LeasedDomain[]> {
    return (await updateReturning<LeasedRow>(this.manager, this.kind, update, 'id, application_id, check_count', params)).map(toLeased);
  }
}
