import type { HousekeepingTable, RetentionCutoffs } from '@cds/core';
import type { EntityManager } from 'typeorm';
import type { DatabaseKind } from '../database-url';
import { databaseNow } from '../sql';
import type { HousekeepingRepository } from './housekeeping.types';
import { pruneStatement } from './prune-statements';

export class TypeOrmHousekeepingRepository implements HousekeepingRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {}

  databaseTime(): Promise<Date> {
    return databaseNow(this.manager, this.kind);
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
