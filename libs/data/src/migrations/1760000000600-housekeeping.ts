import type { MigrationInterface, QueryRunner } from 'typeorm';

// Housekeeping (DECISIONS §9) deletes in batches by age. Each index below lets
// a batch find its rows by a range scan instead of reading the whole table,
// and lets the foreign keys find what points at a deleted row. Already there:
// idempotency_keys (expires_at) and rate_counters (reset_at). The partial
// indexes repeat the conditions of the deletes word for word, which SQLite
// needs to use them. Same statements on both databases.

const UP = [
  'CREATE INDEX ix_outbox_published ON outbox (published_at) WHERE published_at IS NOT NULL',
  "CREATE INDEX ix_webhook_deliveries_finished ON webhook_deliveries (created_at) WHERE state IN ('delivered', 'abandoned')",
  // A delivery that a replay names is kept; the foreign key's ON DELETE SET NULL looks here too.
  'CREATE INDEX ix_webhook_deliveries_replay_of ON webhook_deliveries (replay_of) WHERE replay_of IS NOT NULL',
  'CREATE INDEX ix_domains_deleted ON domains (deleted_at) WHERE deleted_at IS NOT NULL',
  'CREATE INDEX ix_certificates_domain ON certificates (domain_id)',
  'CREATE INDEX ix_traffic_daily_day ON traffic_daily (day)',
];

const DOWN = [
  'DROP INDEX ix_traffic_daily_day',
  'DROP INDEX ix_certificates_domain',
  'DROP INDEX ix_domains_deleted',
  'DROP INDEX ix_webhook_deliveries_replay_of',
  'DROP INDEX ix_webhook_deliveries_finished',
  'DROP INDEX ix_outbox_published',
];

export class Housekeeping1760000000600 implements MigrationInterface {
  readonly name = 'Housekeeping1760000000600';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
