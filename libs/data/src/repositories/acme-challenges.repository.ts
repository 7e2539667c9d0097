import { LessThan, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import type { AcmeChallengeRow, AcmeChallengesRepository } from './acme-challenges.types';

export class TypeOrmAcmeChallengesRepository implements AcmeChallengesRepository {
  private readonly rows: Repository<AcmeChallengeRow>;

  constructor(manager: EntityManager) {
    this.rows = manager.getRepository<AcmeChallengeRow>(ENTITY.acmeChallenge);
  }

  find(token: string): Promise<AcmeChallengeRow | null> {
    return this.rows.findOneBy({ token });
  }

  async keyAuthorizations(limit: number): Promise<Map<string, string>> {
    const rows = await this.rows.find({ select: { token: true, keyAuthorization: true }, order: { createdAt: 'DESC' }, take: limit });
    return new Map(rows.map((row) => [row.token, row.keyAuthorization]));
  }

  async save(row: AcmeChallengeRow): Promise<void> {
    await this.rows.upsert(row, ['token']);
  }

  async delete(token: string): Promise<void> {
    await this.rows.delete({ token });
  }

  async deleteOlderThan(before: Date): Promise<number> {
    return (await this.rows.delete({ createdAt: LessThan(before) })).affected ?? 0;
  }

  async deleteWithoutLiveDomain(): Promise<number> {
    const result = await this.rows
      .createQueryBuilder()
      .delete()
      .where('hostname NOT IN (SELECT d.hostname FROM domains d WHERE d.deleted_at IS NULL)')
      .execute();
    return result.affected ?? 0;
  }
}
