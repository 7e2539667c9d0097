import type { MessagePayload, RoutingKey } from '@cds/core';
import { In, IsNull, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { nullableTimestampFromDb, numberFromDb, queryRows } from '../sql';
import { insertOutboxRow } from './outbox-insert';
import type { OutboxMessage, OutboxRepository, OutboxRow } from './outbox.types';

export class TypeOrmOutboxRepository implements OutboxRepository {
  private readonly rows: Repository<OutboxRow>;

  constructor(private readonly manager: EntityManager) {
    this.rows = manager.getRepository<OutboxRow>(ENTITY.outbox);
  }

  add<K extends RoutingKey>(routingKey: K, payload: MessagePayload<K>): Promise<OutboxRow> {
    return insertOutboxRow(this.manager, { routingKey, payload } as OutboxMessage);
  }

  unpublished(limit: number): Promise<OutboxRow[]> {
    // Served by the partial index ix_outbox_unpublished (seq, where both are null).
    return this.rows.find({ where: { publishedAt: IsNull(), setAsideAt: IsNull() }, order: { seq: 'ASC' }, take: limit });
  }

  async markPublished(ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.rows.update({ id: In(ids), publishedAt: IsNull() }, { publishedAt: at });
  }

  async recordFailedAttempt(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.rows.increment({ id: In(ids) }, 'attempts', 1);
  }

  async setAside(ids: string[], reason: string, at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.rows.update({ id: In(ids), publishedAt: IsNull(), setAsideAt: IsNull() }, { setAsideAt: at, setAsideReason: reason });
  }

  async backlog(): Promise<{ count: number; oldestAt: Date | null }> {
    const [row] = await queryRows<{ count: unknown; oldest: unknown }>(this.manager, 'SELECT COUNT(*) AS "count", MIN(created_at) AS oldest FROM outbox WHERE published_at IS NULL AND set_aside_at IS NULL', {});
    return { count: numberFromDb(row?.count ?? 0), oldestAt: nullableTimestampFromDb(row?.oldest) };
  }

  all(routingKey?: string): Promise<OutboxRow[]> {
    return this.rows.find({ where: routingKey === undefined ? {} : { routingKey }, order: { seq: 'ASC' } });
  }
}
