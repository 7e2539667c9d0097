import { In, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { numberFromDb, queryRows } from '../sql';
import type { CertificateRow, CertificatesRepository, RenewalsDue } from './certificates.types';

// Certificates the checker will renew at the next check of their domain: a
// live domain's own certificate, expiring soon, whose ownership and routing
// checks pass (without them a certificate is judged, never renewed).
const RENEWALS_DUE = `
  SELECT d.application_id AS application_id, COUNT(*) AS due
  FROM certificates c
  JOIN domains d ON d.id = c.domain_id
  WHERE c.not_after <= :before AND d.deleted_at IS NULL
    AND (SELECT COUNT(*) FROM domain_checks k WHERE k.domain_id = d.id AND k.type IN ('ownership', 'routing') AND k.status = 'passing') = 2
  GROUP BY d.application_id`;

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

  async renewalsDue(before: Date): Promise<RenewalsDue[]> {
    const rows = await queryRows<{ application_id: string; due: unknown }>(this.rows.manager, RENEWALS_DUE, { before });
    return rows.map((row) => ({ applicationId: row.application_id, due: numberFromDb(row.due) }));
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
