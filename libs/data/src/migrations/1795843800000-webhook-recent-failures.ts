import type { MigrationInterface, QueryRunner } from 'typeorm';

// Cooling of a receiver that fails most attempts (DECISIONS §10, docs/webhooks.md):
// - recent_outcomes: the subscription's last attempts (at most 20), oldest
//   first, 'f' failed and 's' succeeded, from the oldest failure among them
//   (libs/core CoolingState); recent_failures: how many of them failed.
//   Both are written with each attempt's outcome, with consecutive_failures.
// - The partial index of cooling subscriptions takes the new condition (5
//   failures in a row, or 16 of the last 20), which the queries repeat word
//   for word (repositories/webhook-cooling.ts), as SQLite needs to use it.
// Same statements on both databases.

const UP = [
  "ALTER TABLE webhook_subscriptions ADD COLUMN recent_outcomes varchar(20) NOT NULL DEFAULT ''",
  'ALTER TABLE webhook_subscriptions ADD COLUMN recent_failures integer NOT NULL DEFAULT 0',
  'DROP INDEX ix_webhook_subscriptions_cooling',
  'CREATE INDEX ix_webhook_subscriptions_cooling ON webhook_subscriptions (id) WHERE (consecutive_failures >= 5 OR recent_failures >= 16)',
];

const DOWN = [
  'DROP INDEX ix_webhook_subscriptions_cooling',
  'CREATE INDEX ix_webhook_subscriptions_cooling ON webhook_subscriptions (id) WHERE consecutive_failures >= 5',
  'ALTER TABLE webhook_subscriptions DROP COLUMN recent_failures',
  'ALTER TABLE webhook_subscriptions DROP COLUMN recent_outcomes',
];

export class WebhookRecentFailures1795843800000 implements MigrationInterface {
  readonly name = 'WebhookRecentFailures1795843800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
