import type { CoolingState } from '@cds/core';
import { In, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import { numberFromDb, queryRows, type RawRow } from '../sql';
import type { DatabaseKind } from '../database-url';
import type { WebhookSecretRow, WebhookSubscriptionRow, WebhookSubscriptionsRepository } from './webhook-subscriptions.types';
import { cooling, coolingStateFromDb } from './webhook-cooling';
import { atomically, updateWhere } from './write-helpers';

const OLDEST_FIRST = { createdAt: 'ASC', id: 'ASC' } as const;

export class TypeOrmWebhookSubscriptionsRepository implements WebhookSubscriptionsRepository {
  private readonly rows: Repository<WebhookSubscriptionRow>;
  private readonly secrets: Repository<WebhookSecretRow>;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.rows = manager.getRepository<WebhookSubscriptionRow>(ENTITY.webhookSubscription);
    this.secrets = manager.getRepository<WebhookSecretRow>(ENTITY.webhookSecret);
  }

  insert(subscription: WebhookSubscriptionRow, secret: WebhookSecretRow): Promise<void> {
    return atomically(this.manager, async (manager) => {
      await guardUnique(manager.getRepository<WebhookSubscriptionRow>(ENTITY.webhookSubscription).insert(subscription));
      await guardUnique(manager.getRepository<WebhookSecretRow>(ENTITY.webhookSecret).insert(secret));
    });
  }

  list(applicationId: string): Promise<WebhookSubscriptionRow[]> {
    return this.rows.find({ where: { applicationId }, order: OLDEST_FIRST });
  }

  find(applicationId: string, id: string): Promise<WebhookSubscriptionRow | null> {
    return this.rows.findOneBy({ applicationId, id });
  }

  // SQLite needs no locks: its units of work run one at a time.
  async lock(applicationId: string, id: string): Promise<void> {
    if (this.kind === 'postgres') {
      await queryRows(this.manager, 'SELECT id FROM webhook_subscriptions WHERE application_id = :applicationId AND id = :id FOR UPDATE', { applicationId, id });
    }
  }

  countActive(applicationId: string): Promise<number> {
    return this.rows.countBy({ applicationId, status: 'active' });
  }

  update(applicationId: string, id: string, patch: Partial<Pick<WebhookSubscriptionRow, 'status' | 'updatedAt' | 'revokedAt'>>): Promise<void> {
    return updateWhere(this.rows, { applicationId, id }, patch);
  }

  activeForFanOut(applicationIds: string[]): Promise<WebhookSubscriptionRow[]> {
    if (applicationIds.length === 0) return Promise.resolve([]);
    const query = this.rows
      .createQueryBuilder('s')
      .where('s.application_id IN (:...applicationIds)', { applicationIds })
      .andWhere("s.status = 'active'")
      .orderBy('s.created_at', 'ASC')
      .addOrderBy('s.id', 'ASC');
    // A revoke holds FOR UPDATE until it commits; FOR KEY SHARE waits for it and then sees `revoked`.
    // KEY SHARE, not SHARE: it does not wait for the failure-streak writes of attempt outcomes
    // (NO KEY UPDATE), which lock several subscriptions at once and would otherwise deadlock with it.
    return (this.kind === 'postgres' ? query.setLock('for_key_share') : query).getMany();
  }

  findMany(ids: string[]): Promise<WebhookSubscriptionRow[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.rows.findBy({ id: In(ids) });
  }

  async addSecret(row: WebhookSecretRow): Promise<void> {
    await guardUnique(this.secrets.insert(row));
  }

  async expireCurrentSecrets(subscriptionId: string, expiresAt: Date): Promise<void> {
    await this.secrets
      .createQueryBuilder()
      .update()
      .set({ expiresAt })
      .where('subscription_id = :subscriptionId AND expires_at IS NULL', { subscriptionId })
      .execute();
  }

  signingSecrets(subscriptionIds: string[], now: Date): Promise<WebhookSecretRow[]> {
    if (subscriptionIds.length === 0) return Promise.resolve([]);
    return this.secrets
      .createQueryBuilder('k')
      .where('k.subscription_id IN (:...subscriptionIds)', { subscriptionIds })
      .andWhere('(k.expires_at IS NULL OR k.expires_at > :now)', { now })
      .orderBy('k.created_at', 'DESC')
      .addOrderBy('k.id', 'DESC')
      .getMany();
  }

  async coolingStates(subscriptionIds: string[]): Promise<Map<string, CoolingState>> {
    if (subscriptionIds.length === 0) return new Map();
    const rows = await queryRows<RawRow>(
      this.manager, 'SELECT id, consecutive_failures, recent_outcomes FROM webhook_subscriptions WHERE id IN (:...subscriptionIds)', { subscriptionIds },
    );
    return new Map(rows.map((row) => [row.id as string, coolingStateFromDb(row)]));
  }

  async countCooling(): Promise<number> {
    const [row] = await queryRows<{ count: unknown }>(this.manager, `SELECT count(*) AS count FROM webhook_subscriptions WHERE ${cooling()} AND status = 'active'`, {});
    return numberFromDb(row?.count ?? 0);
  }
}
