import { In, IsNull, type EntityManager, type FindOptionsWhere, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import type { CheckRow, CheckType, DomainListFilter, DomainRow, DomainsRepository } from '../types';
import { atomically, updateWhere } from './write-helpers';

const CHECK_ORDER: readonly CheckType[] = ['ownership', 'routing', 'certificate', 'origin'];
const OLDEST_FIRST = { createdAt: 'ASC', id: 'ASC' } as const;

export class TypeOrmDomainsRepository implements DomainsRepository {
  private readonly rows: Repository<DomainRow>;
  private readonly checks: Repository<CheckRow>;

  constructor(private readonly manager: EntityManager) {
    this.rows = manager.getRepository<DomainRow>(ENTITY.domain);
    this.checks = manager.getRepository<CheckRow>(ENTITY.domainCheck);
  }

  insert(domain: DomainRow, checks: CheckRow[]): Promise<void> {
    return atomically(this.manager, async (manager) => {
      await guardUnique(manager.getRepository<DomainRow>(ENTITY.domain).insert(domain));
      if (checks.length > 0) await guardUnique(manager.getRepository<CheckRow>(ENTITY.domainCheck).insert(checks));
    });
  }

  find(applicationId: string, id: string, includeDeleted: boolean): Promise<DomainRow | null> {
    return this.rows.findOneBy({ applicationId, id, ...(includeDeleted ? {} : { deletedAt: IsNull() }) });
  }

  list(applicationId: string, filter: DomainListFilter): Promise<DomainRow[]> {
    const where: FindOptionsWhere<DomainRow> = { applicationId };
    if (filter.reference !== undefined) where.reference = filter.reference;
    if (filter.status !== undefined) where.status = filter.status;
    if (!filter.includeDeleted) where.deletedAt = IsNull();
    return this.rows.find({ where, order: OLDEST_FIRST, skip: filter.offset, take: filter.limit });
  }

  /** Checks of the given domains, grouped in the order of `domainIds`, each group ownership → origin. */
  async checksOf(domainIds: string[]): Promise<CheckRow[]> {
    if (domainIds.length === 0) return [];
    const rows = await this.checks.findBy({ domainId: In(domainIds) });
    const position = new Map(domainIds.map((id, index) => [id, index]));
    const rank = (row: CheckRow) => (position.get(row.domainId) ?? 0) * CHECK_ORDER.length + CHECK_ORDER.indexOf(row.type);
    return rows.sort((a, b) => rank(a) - rank(b));
  }

  countLive(applicationId: string): Promise<number> {
    return this.rows.countBy({ applicationId, deletedAt: IsNull() });
  }

  countLiveAll(): Promise<number> {
    return this.rows.countBy({ deletedAt: IsNull() });
  }

  findLiveByHostname(hostname: string): Promise<DomainRow | null> {
    return this.rows.findOneBy({ hostname, deletedAt: IsNull() });
  }

  update(applicationId: string, id: string, patch: Partial<Omit<DomainRow, 'id' | 'applicationId'>>): Promise<void> {
    return updateWhere(this.rows, { applicationId, id }, patch);
  }

  listLive(applicationId: string): Promise<DomainRow[]> {
    return this.rows.find({ where: { applicationId, deletedAt: IsNull() }, order: OLDEST_FIRST });
  }
}
