import type { EntityManager, Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import type { OriginRow, OriginsRepository } from './origins.types';
import { updateWhere } from './write-helpers';

export class TypeOrmOriginsRepository implements OriginsRepository {
  private readonly rows: Repository<OriginRow>;

  constructor(manager: EntityManager) {
    this.rows = manager.getRepository<OriginRow>(ENTITY.origin);
  }

  list(applicationId: string): Promise<OriginRow[]> {
    return this.rows.find({ where: { applicationId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  find(applicationId: string, id: string): Promise<OriginRow | null> {
    return this.rows.findOneBy({ applicationId, id });
  }

  findActive(applicationId: string): Promise<OriginRow | null> {
    return this.rows.findOneBy({ applicationId, status: 'active' });
  }

  async insert(row: OriginRow): Promise<void> {
    await guardUnique(this.rows.insert(row));
  }

  update(applicationId: string, id: string, patch: Partial<Omit<OriginRow, 'id' | 'applicationId'>>): Promise<void> {
    return updateWhere(this.rows, { applicationId, id }, patch);
  }

  async delete(applicationId: string, id: string): Promise<void> {
    await this.rows.delete({ applicationId, id });
  }
}
