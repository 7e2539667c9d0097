import { IsNull, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import type { ApplicationRow, CredentialRow, CredentialsRepository } from '../types';
import { updateWhere } from './write-helpers';

export class TypeOrmCredentialsRepository implements CredentialsRepository {
  private readonly rows: Repository<CredentialRow>;

  constructor(manager: EntityManager) {
    this.rows = manager.getRepository<CredentialRow>(ENTITY.credential);
  }

  findByHash(keyHash: string): Promise<CredentialRow | null> {
    return this.rows.findOneBy({ keyHash });
  }

  async findWithApplication(keyHash: string): Promise<{ credential: CredentialRow; application: ApplicationRow } | null> {
    // One round trip for every authenticated request: the credential and its live application.
    const found = await this.rows
      .createQueryBuilder('c')
      .innerJoinAndMapOne('c.application', ENTITY.application, 'a', 'a.id = c.applicationId AND a.deletedAt IS NULL')
      .where('c.keyHash = :keyHash', { keyHash })
      .getOne();
    if (!found) return null;
    const { application, ...credential } = found as CredentialRow & { application: ApplicationRow };
    return { credential, application };
  }

  list(applicationId: string): Promise<CredentialRow[]> {
    return this.rows.find({ where: { applicationId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  find(applicationId: string, id: string): Promise<CredentialRow | null> {
    return this.rows.findOneBy({ applicationId, id });
  }

  async insert(row: CredentialRow): Promise<void> {
    await guardUnique(this.rows.insert(row));
  }

  update(applicationId: string, id: string, patch: Partial<Omit<CredentialRow, 'id' | 'applicationId'>>): Promise<void> {
    return updateWhere(this.rows, { applicationId, id }, patch);
  }

  async delete(applicationId: string, id: string): Promise<void> {
    await this.rows.delete({ applicationId, id });
  }

  countActive(applicationId: string, now: Date): Promise<number> {
    return this.rows
      .createQueryBuilder('c')
      .where('c.application_id = :applicationId', { applicationId })
      .andWhere('c.revoked_at IS NULL')
      .andWhere('(c.expires_at IS NULL OR c.expires_at > :now)', { now })
      .getCount();
  }

  async revokeAll(applicationId: string, at: Date): Promise<void> {
    await this.rows.update({ applicationId, revokedAt: IsNull() }, { revokedAt: at });
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.rows.update({ id }, { lastUsedAt: at });
  }
}
