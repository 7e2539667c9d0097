import { In, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import type { CertificateRow, CertificatesRepository } from '../types';

export class TypeOrmCertificatesRepository implements CertificatesRepository {
  private readonly rows: Repository<CertificateRow>;

  constructor(manager: EntityManager) {
    this.rows = manager.getRepository<CertificateRow>(ENTITY.certificate);
  }

  find(hostname: string): Promise<CertificateRow | null> {
    return this.rows.findOneBy({ hostname });
  }

  findMany(hostnames: string[]): Promise<CertificateRow[]> {
    return hostnames.length === 0 ? Promise.resolve([]) : this.rows.findBy({ hostname: In(hostnames) });
  }

  async save(row: CertificateRow): Promise<void> {
    await this.rows.upsert(row, ['hostname']);
  }

  async delete(hostname: string): Promise<void> {
    await this.rows.delete({ hostname });
  }

  async deleteOfDeletedDomains(): Promise<string[]> {
    const gone = await this.rows
      .createQueryBuilder('c')
      .where('c.domain_id IN (SELECT d.id FROM domains d WHERE d.deleted_at IS NOT NULL)')
      .getMany();
    if (gone.length > 0) await this.rows.delete(gone.map((row) => row.hostname));
    return gone.map((row) => row.hostname);
  }
}
