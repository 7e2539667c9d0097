import type { QueryRunner } from 'typeorm';
import { createDeclaredIndexes, dropDeclaredIndexes, type ConcurrentIndex, type DeclaresConcurrentIndexes } from './concurrent-index';

// Fair webhook sending (DECISIONS §10).
// - consecutive_failures: the failure streak of a subscription's attempts,
//   written with each attempt's outcome, so every dispatcher replica sees the
//   same cooling state (5 or more: cooling).
// - The lease takes each subscription's earliest due deliveries: it walks the
//   pending deliveries by (subscription_id, next_attempt_at), one index descent
//   per subscription, instead of every due row oldest first.
// - The replay limit counts an application's pending deliveries.
// - Cooling subscriptions are few; the lease and the gauge find them by a
//   partial index whose condition (5, fixed by the contract) the queries
//   repeat word for word, which SQLite needs to use it.
// Same statements on both databases.

const UP = [
  'ALTER TABLE webhook_subscriptions ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0',
  'CREATE INDEX ix_webhook_subscriptions_cooling ON webhook_subscriptions (id) WHERE consecutive_failures >= 5',
];

/** On the deliveries, which grow with the deployment: built concurrently on PostgreSQL (concurrent-index.ts). */
const INDEXES: ConcurrentIndex[] = [
  { name: 'ix_webhook_deliveries_subscription_due', table: 'webhook_deliveries', definition: "(subscription_id, next_attempt_at) WHERE state = 'pending'" },
  { name: 'ix_webhook_deliveries_application_pending', table: 'webhook_deliveries', definition: "(application_id) WHERE state = 'pending'" },
];

const DOWN = [
  'DROP INDEX ix_webhook_subscriptions_cooling',
  'ALTER TABLE webhook_subscriptions DROP COLUMN consecutive_failures',
];

export class WebhookFairness1760000000700 implements DeclaresConcurrentIndexes {
  readonly name = 'WebhookFairness1760000000700';
  readonly concurrentIndexes = INDEXES;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
    await createDeclaredIndexes(queryRunner, INDEXES);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDeclaredIndexes(queryRunner, INDEXES);
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
