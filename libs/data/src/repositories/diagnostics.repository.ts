import type { EntityManager } from 'typeorm';
import { nullableTimestampFromDb, numberFromDb, queryRows, timestampFromDb } from '../sql';
import type { DatabaseKind } from '../database-url';
import type { DiagnosticsRepository } from './diagnostics.types';

// The certificate and webhook-delivery tables belong to later versions: every
// probe first asks whether its table exists, so the doctor runs on any schema.
const CERTIFICATES = 'certificates';
const WEBHOOK_DELIVERIES = 'webhook_deliveries';

export class TypeOrmDiagnosticsRepository implements DiagnosticsRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {}

  async now(): Promise<Date> {
    // SQLite's clock is the process's own; strftime keeps the milliseconds datetime() drops.
    const sql = this.kind === 'postgres' ? 'SELECT now() AS now' : "SELECT strftime('%Y-%m-%d %H:%M:%f', 'now') AS now";
    const [row] = await queryRows<{ now: unknown }>(this.manager, sql, {});
    return timestampFromDb(row?.now);
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

  private async tableExists(table: string): Promise<boolean> {
    const sql =
      this.kind === 'postgres'
        ? 'SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = :table'
        : "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = :table";
    const [row] = await queryRows<{ n: unknown }>(this.manager, sql, { table });
    return numberFromDb(row?.n) > 0;
  }
}
