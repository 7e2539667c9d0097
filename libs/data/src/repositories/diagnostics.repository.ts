import type { EntityManager } from 'typeorm';
import { databaseNow, nullableTimestampFromDb, numberFromDb, queryRows } from '../sql';
import type { DatabaseKind } from '../database-url';
import type { DiagnosticsRepository } from './diagnostics.types';

// The certificate and webhook-delivery tables belong to later versions: every
// probe first asks whether its table exists, so the doctor runs on any schema.
const CERTIFICATES = 'certificates';
const WEBHOOK_DELIVERIES = 'webhook_deliveries';
// The check confirmation streak (DECISIONS §11) is a later column of domain_checks.
const DOMAIN_CHECKS = 'domain_checks';
const FAILED_RUNS = 'failed_runs';

export class TypeOrmDiagnosticsRepository implements DiagnosticsRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {}

  now(): Promise<Date> {
    return databaseNow(this.manager, this.kind);
  }

  async certificatesExpiringBefore(at: Date): Promise<number | null> {
    if (!(await this.tableExists(CERTIFICATES))) return null;
    const [row] = await queryRows<{ n: unknown }>(this.manager, `SELECT COUNT(*) AS n FROM ${CERTIFICATES} WHERE not_after < :at`, { at });
    return numberFromDb(row?.n);
  }

  async webhookBacklog(): Promise<{ pending: number; oldestDueAt: Date | null } | null> {
    if (!(await this.tableExists(WEBHOOK_DELIVERIES))) return null;
    const [row] = await queryRows<{ n: unknown; oldest: unknown }>(
      this.manager,
      `SELECT COUNT(*) AS n, MIN(next_attempt_at) AS oldest FROM ${WEBHOOK_DELIVERIES} WHERE state = 'pending'`,
      {},
    );
    const oldest = row?.oldest;
    return { pending: numberFromDb(row?.n), oldestDueAt: nullableTimestampFromDb(oldest) };
  }

  async domainsConfirming(): Promise<number | null> {
    if (!(await this.columnExists(DOMAIN_CHECKS, FAILED_RUNS))) return null;
    // ix_domain_checks_failing (partial, failed_runs > 0) keeps this to the few rows being confirmed.
    const [row] = await queryRows<{ n: unknown }>(
      this.manager,
      `SELECT COUNT(DISTINCT dc.domain_id) AS n FROM ${DOMAIN_CHECKS} dc JOIN domains d ON d.id = dc.domain_id
       WHERE dc.${FAILED_RUNS} > 0 AND d.status = 'ready' AND d.deleted_at IS NULL`,
      {},
    );
    return numberFromDb(row?.n);
  }

  private async columnExists(table: string, column: string): Promise<boolean> {
    const sql =
      this.kind === 'postgres'
        ? 'SELECT COUNT(*) AS n FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = :table AND column_name = :column'
        : 'SELECT COUNT(*) AS n FROM pragma_table_info(:table) WHERE name = :column';
    const [row] = await queryRows<{ n: unknown }>(this.manager, sql, { table, column });
    return numberFromDb(row?.n) > 0;
  }

  private async tableExists(table: string): Promise<boolean> {
    const sql =
      this.kind === 'postgres'
        ? 'SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = :table'
        : "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = :table";
    const [row] = await queryRows<{ n: unknown }>(this.manager, sql, { table });
    return numberFromDb(row?.n) > 0;
  }
}
