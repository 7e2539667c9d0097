import type { HousekeepingTable, RetentionCutoffs } from '@cds/core';
import type { EntityManager, QueryRunner } from 'typeorm';
import type { DatabaseKind } from '../database-url';
import { databaseNow } from '../sql';
import type { HousekeepingRepository, PrunedBatch } from './housekeeping.types';
import { pruneStatement } from './prune-statements';

export class TypeOrmHousekeepingRepository implements HousekeepingRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {}

  databaseTime(): Promise<Date> {
    return databaseNow(this.manager, this.kind);
  }

  async prune(table: HousekeepingTable, cutoffs: RetentionCutoffs, limit?: number): Promise<PrunedBatch> {
    const { sql, params } = pruneStatement(this.kind, table, cutoffs, limit);
    const [text, values] = this.manager.connection.driver.escapeQueryWithParameters(sql, params, {});
    const runner = this.manager.queryRunner ?? this.manager.connection.createQueryRunner();
    try {
      const before = await this.walPosition(runner);
      // The structured result carries the deleted count on both drivers (rows cascaded by foreign keys not included).
      const deleted = (await runner.query(text, values, true)).affected ?? 0;
      const after = before === null ? null : await this.walPosition(runner);
      return { deleted, walBytes: before === null || after === null ? null : Math.max(0, after - before) };
    } finally {
      if (!this.manager.queryRunner) await runner.release();
    }
  }

  /**
   * Where PostgreSQL's WAL is being inserted, in bytes; null on SQLite, or
   * when the server will not say (a batch is then as large as allowed).
   */
  private async walPosition(runner: QueryRunner): Promise<number | null> {
    if (this.kind !== 'postgres') return null;
    try {
      const rows = (await runner.query(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text AS at`)) as Array<{ at: string }>;
      const at = Number(rows[0]?.at);
      return Number.isFinite(at) ? at : null;
    } catch {
      return null;
    }
  }
}
