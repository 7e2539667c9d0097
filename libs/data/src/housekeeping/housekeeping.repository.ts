import type { HousekeepingTable, RetentionCutoffs } from '@cds/core';
import type { EntityManager } from 'typeorm';
import type { DatabaseKind } from '../database-url';
import { queryRows, timestampFromDb } from '../sql';
import type { HousekeepingRepository } from './housekeeping.types';
import { pruneStatement } from './prune-statements';

/** The database's clock; SQLite's in the text form its timestamps are stored in (`YYYY-MM-DD HH:MM:SS.SSS`, UTC). */
const DATABASE_TIME: Record<DatabaseKind, string> = {
  postgres: 'SELECT now() AS now',
  sqlite: "SELECT strftime('%Y-%m-%d %H:%M:%f', 'now') AS now",
};

export class TypeOrmHousekeepingRepository implements HousekeepingRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {}

  async databaseTime(): Promise<Date> {
    const [row] = await queryRows<{ now: unknown }>(this.manager, DATABASE_TIME[this.kind], {});
    return timestampFromDb(row?.now);
  }

  async prune(table: HousekeepingTable, cutoffs: RetentionCutoffs): Promise<number> {
    const { sql, params } = pruneStatement(this.kind, table, cutoffs);
    const [text, values] = this.manager.connection.driver.escapeQueryWithParameters(sql, params, {});
    // The structured result carries the deleted count on both drivers (rows cascaded by foreign keys not included).
    const runner = this.manager.queryRunner ?? this.manager.connection.createQueryRunner();
    try {
      return (await runner.query(text, values, true)).affected ?? 0;
    } finally {
      if (!this.manager.queryRunner) await runner.release();
    }
  }
}
