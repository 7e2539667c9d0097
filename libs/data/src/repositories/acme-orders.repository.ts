import type { EntityManager } from 'typeorm';
import type { DatabaseKind } from '../database-url';
import { nullableTimestampFromDb, queryRows, timestampFromDb, updateReturning, type RawRow } from '../sql';
import type { AcmeOrderRow, AcmeOrdersRepository } from './acme-orders.types';

/** The database's clock, and the same clock `:maxAge` ago (an interval on PostgreSQL, a date modifier on SQLite). */
const CLOCK: Record<DatabaseKind, { now: string; ago: string; maxAge: (ms: number) => string }> = {
  postgres: { now: 'statement_timestamp()', ago: 'statement_timestamp() - CAST(:maxAge AS interval)', maxAge: (ms) => `${ms} milliseconds` },
  sqlite: { now: "strftime('%Y-%m-%d %H:%M:%f', 'now')", ago: "strftime('%Y-%m-%d %H:%M:%f', 'now', :maxAge)", maxAge: (ms) => `-${ms / 1000} seconds` },
};

const COLUMNS = 'hostname, order_url, key_sealed, replaces, saved_at, expires_at, directory_url';

const fromDb = (row: RawRow): AcmeOrderRow => ({
  hostname: String(row.hostname), orderUrl: String(row.order_url), keySealed: String(row.key_sealed),
  replaces: row.replaces === null || row.replaces === undefined ? null : String(row.replaces),
  savedAt: timestampFromDb(row.saved_at), expiresAt: nullableTimestampFromDb(row.expires_at),
  directoryUrl: row.directory_url === null || row.directory_url === undefined ? null : String(row.directory_url),
});

export class TypeOrmAcmeOrdersRepository implements AcmeOrdersRepository {
  private readonly clock: (typeof CLOCK)[DatabaseKind];

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.clock = CLOCK[kind];
  }

  async save(order: Omit<AcmeOrderRow, 'savedAt'>): Promise<void> {
    await queryRows(this.manager, `
      INSERT INTO acme_orders (${COLUMNS}) VALUES (:hostname, :orderUrl, :keySealed, :replaces, ${this.clock.now}, :expiresAt, :directoryUrl)
      ON CONFLICT (hostname) DO UPDATE SET order_url = excluded.order_url, key_sealed = excluded.key_sealed, replaces = excluded.replaces,
        saved_at = excluded.saved_at, expires_at = excluded.expires_at, directory_url = excluded.directory_url`, { ...order, directoryUrl: order.directoryUrl ?? null });
  }

  async findCurrent(hostname: string, maxAgeMs: number): Promise<AcmeOrderRow | null> {
    const [row] = await queryRows<RawRow>(this.manager, `
      SELECT ${COLUMNS} FROM acme_orders
      WHERE hostname = :hostname AND saved_at > ${this.clock.ago} AND (expires_at IS NULL OR expires_at > ${this.clock.now})`,
    { hostname, maxAge: this.clock.maxAge(maxAgeMs) });
    return row ? fromDb(row) : null;
  }

  async deleteStale(maxAgeMs: number): Promise<number> {
    const deleted = await updateReturning(this.manager, this.kind,
      `DELETE FROM acme_orders WHERE saved_at <= ${this.clock.ago} OR expires_at <= ${this.clock.now}`, 'hostname', { maxAge: this.clock.maxAge(maxAgeMs) });
    return deleted.length;
  }

  async delete(hostname: string): Promise<void> {
    await queryRows(this.manager, 'DELETE FROM acme_orders WHERE hostname = :hostname', { hostname });
  }
}
