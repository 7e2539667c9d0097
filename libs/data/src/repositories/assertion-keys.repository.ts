import { IsNull, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import type { AssertionKeyRow, AssertionKeysRepository } from './assertion-keys.types';

export class TypeOrmAssertionKeysRepository implements AssertionKeysRepository {
  private readonly rows: Repository<AssertionKeyRow>;

  constructor(manager: EntityManager) {
    this.rows = manager.getRepository<AssertionKeyRow>(ENTITY.assertionKey);
  }

  list(applicationId: string): Promise<AssertionKeyRow[]> {
    return this.rows.find({ where: { applicationId }, order: { createdAt: 'ASC', kid: 'ASC' } });
  }

  find(applicationId: string, kid: string): Promise<AssertionKeyRow | null> {
    return this.rows.findOneBy({ applicationId, kid });
  }

  async insert(row: AssertionKeyRow): Promise<void> {
    await guardUnique(this.rows.insert(row));
  }

  /** Sets `revoked_at` once; a key already revoked keeps its first time. */
  async revoke(applicationId: string, kid: string, at: Date): Promise<void> {
    await this.rows.update({ applicationId, kid, revokedAt: IsNull() }, { revokedAt: at });
  }
}
