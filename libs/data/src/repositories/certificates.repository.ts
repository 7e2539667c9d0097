import { RENEWAL_LIFETIME_FRACTION } from '@cds/core';
import { In, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { numberFromDb, queryRows } from '../sql';
import type { CertificateRow, CertificatesRepository, RenewalsDue } from './certificates.types';

// Certificates the checker will renew at the next check of their domain: a
// live domain's own certificate past two thirds of its lifetime (DECISIONS
// §11; a CA's renewal window is not known here), whose ownership and routing
// checks pass (without them a certificate is judged, never renewed).
const renewalsDueSql = (renewalAfterAtMost: string) => `
  SELECT d.application_id AS application_id, COUNT(*) AS due
  FROM certificates c
  JOIN domains d ON d.id = c.domain_id
  WHERE ${renewalAfterAtMost} AND d.deleted_at IS NULL
    AND (SELECT COUNT(*) FROM domain_checks k WHERE k.domain_id = d.id AND k.type IN ('ownership', 'routing') AND k.status = 'passing') = 2
  GROUP BY d.application_id`;

const RENEWALS_DUE = {
  postgres: renewalsDueSql(`c.not_before + (c.not_after - c.not_before) * ${RENEWAL_LIFETIME_FRACTION} <= :now`),
  sqlite: renewalsDueSql(`julianday(c.not_before) + (julianday(c.not_after) - julianday(c.not_before)) * ${RENEWAL_LIFETIME_FRACTION} <= julianday(:now)`),
};

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

  async renewalsDue(now: Date): Promise<RenewalsDue[]> {
    const sql = this.rows.manager.connection.options.type === 'postgres' ? RENEWALS_DUE.postgres : RENEWALS_DUE.sqlite;
    const rows = await queryRows<{ application_id: string; due: unknown }>(this.rows.manager, sql, { now });
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
