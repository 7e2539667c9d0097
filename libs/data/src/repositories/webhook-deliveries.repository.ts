// Webhook deliveries as rows: inserted by the fan-out and by replays, listed
// and read by the API with their attempts, abandoned on revocation. The
// dispatcher's lease of due deliveries is webhook-delivery-queue.repository.ts.
import type { EntityManager, Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import { numberFromDb, queryRows } from '../sql';
import type { DatabaseKind } from '../database-url';
import type { WebhookAttemptRow, WebhookDeliveriesRepository, WebhookDeliveryFilter, WebhookDeliveryRow } from './webhook-deliveries.types';
import { DELIVERY_CHUNK, DELIVERY_COLUMNS } from './webhook-delivery-rows';
import { insertRows, rowsInsert } from './rows-insert';
import { chunks } from './write-helpers';

// DO NOTHING without a target covers the partial unique index on (subscription_id, event_id) of originals.
const INSERT_DELIVERIES = rowsInsert('webhook_deliveries', DELIVERY_COLUMNS, ' ON CONFLICT DO NOTHING RETURNING id');

const NEWEST_FIRST = { createdAt: 'DESC', id: 'DESC' } as const;

export class TypeOrmWebhookDeliveriesRepository implements WebhookDeliveriesRepository {
  private readonly rows: Repository<WebhookDeliveryRow>;
  private readonly attempts: Repository<WebhookAttemptRow>;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.rows = manager.getRepository<WebhookDeliveryRow>(ENTITY.webhookDelivery);
    this.attempts = manager.getRepository<WebhookAttemptRow>(ENTITY.webhookAttempt);
  }

  async insertMany(rows: WebhookDeliveryRow[]): Promise<string[]> {
    const inserted: string[] = [];
    for (const chunk of chunks(rows, DELIVERY_CHUNK)) {
      const returned = await guardUnique(insertRows<WebhookDeliveryRow, { id: string }>(this.manager, this.kind, INSERT_DELIVERIES, chunk));
      inserted.push(...returned.map((r) => r.id));
    }
    return inserted;
  }

  find(applicationId: string, subscriptionId: string, id: string): Promise<WebhookDeliveryRow | null> {
    return this.rows.findOneBy({ applicationId, subscriptionId, id });
  }

  list(applicationId: string, subscriptionId: string, filter: WebhookDeliveryFilter): Promise<WebhookDeliveryRow[]> {
    return this.rows.find({
      where: { applicationId, subscriptionId, ...(filter.state ? { state: filter.state } : {}) },
      order: NEWEST_FIRST,
      skip: filter.offset,
      take: filter.limit,
    });
  }

  countSince(applicationId: string, subscriptionId: string, since: Date): Promise<number> {
    return this.sinceQuery(applicationId, subscriptionId, since).getCount();
  }

  listSince(applicationId: string, subscriptionId: string, since: Date, limit: number): Promise<WebhookDeliveryRow[]> {
    return this.sinceQuery(applicationId, subscriptionId, since).orderBy('d.created_at', 'ASC').addOrderBy('d.id', 'ASC').take(limit).getMany();
  }

  async abandonPending(subscriptionId: string, lastError: string): Promise<number> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ state: 'abandoned', nextAttemptAt: null, lastError })
      .where("subscription_id = :subscriptionId AND state = 'pending'", { subscriptionId })
      .execute();
    return result.affected ?? 0;
  }

  async countPending(applicationId: string): Promise<number> {
    // The literal 'pending' matches ix_webhook_deliveries_application_pending (SQLite needs it so).
    const [row] = await queryRows<{ count: unknown }>(this.manager, "SELECT count(*) AS count FROM webhook_deliveries WHERE application_id = :applicationId AND state = 'pending'", { applicationId });
    return numberFromDb(row?.count ?? 0);
  }

  attemptsOf(deliveryId: string): Promise<WebhookAttemptRow[]> {
    return this.attempts.find({ where: { deliveryId }, order: { attempt: 'ASC' } });
  }

  private sinceQuery(applicationId: string, subscriptionId: string, since: Date) {
    return this.rows
      .createQueryBuilder('d')
      .where('d.application_id = :applicationId AND d.subscription_id = :subscriptionId', { applicationId, subscriptionId })
      .andWhere('d.created_at >= :since', { since });
  }
}
