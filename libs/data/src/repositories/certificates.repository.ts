import { RENEWAL_LIFETIME_FRACTION } from '@cds/core';
import { In, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { numberFromDb, queryRows } from '../sql';
import type { CertificateRow, CertificatesRepository, RenewalsDue, RenewRequested, RenewRequestScope } from './certificates.types';

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

/** Rows changed per statement at most (parameters stay far below both databases' limits). */
const ROWS_PER_STATEMENT = 500;

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
    // A certificate written anew is not marked for re-issue unless the row says so (an absent field would be left as it was).
    await this.rows.upsert({ ...row, renewRequestedAt: row.renewRequestedAt ?? null }, ['hostname']);
  }

  async delete(hostname: string): Promise<void> {
    await this.rows.delete({ hostname });
  }

  async renewalsDue(now: Date): Promise<RenewalsDue[]> {
    const sql = this.rows.manager.connection.options.type === 'postgres' ? RENEWALS_DUE.postgres : RENEWALS_DUE.sqlite;
    const rows = await queryRows<{ application_id: string; due: unknown }>(this.rows.manager, sql, { now });
    return rows.map((row) => ({ applicationId: row.application_id, due: numberFromDb(row.due) }));
  }

  async requestRenewal(scope: RenewRequestScope, at: Date): Promise<RenewRequested[]> {
    const { manager } = this.rows;
    const where: string[] = [];
    const params: Record<string, unknown> = {};
    if ('hostname' in scope) {
      where.push('c.hostname = :hostname');
      params.hostname = scope.hostname;
    } else {
      if (scope.issuer) { where.push('c.issuer = :issuer'); params.issuer = scope.issuer; }
      if (scope.directoryUrl) { where.push('c.directory_url = :directoryUrl'); params.directoryUrl = scope.directoryUrl; }
    }
    // Only a live domain's own certificate: an earlier domain's of the hostname is never renewed.
    const rows = await queryRows<{ hostname: string; domain_id: string; application_id: string }>(manager, `
      SELECT c.hostname AS hostname, c.domain_id AS domain_id, d.application_id AS application_id
      FROM certificates c JOIN domains d ON d.id = c.domain_id AND d.hostname = c.hostname
      WHERE d.deleted_at IS NULL${where.map((w) => ` AND ${w}`).join('')}`, params);
    // Sorted here: PostgreSQL's collation would order punctuation differently from SQLite.
    rows.sort((a, b) => (a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : 0));
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      await manager.createQueryBuilder().update(ENTITY.certificate).set({ renewRequestedAt: at })
        .where('hostname IN (:...hostnames)', { hostnames: chunk.map((row) => row.hostname) }).execute();
      // Checked soon: a check already due sooner keeps its time.
      await manager.createQueryBuilder().update(ENTITY.domain).set({ nextCheckAt: at })
        .where('id IN (:...ids) AND deleted_at IS NULL AND (next_check_at IS NULL OR next_check_at > :at)', { ids: chunk.map((row) => row.domain_id), at }).execute();
    }
    return rows.map((row) => ({ hostname: row.hostname, domainId: String(row.domain_id), applicationId: String(row.application_id) }));
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
