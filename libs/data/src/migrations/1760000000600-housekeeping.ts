import type { QueryRunner } from 'typeorm';
import { createDeclaredIndexes, dropDeclaredIndexes, type ConcurrentIndex, type DeclaresConcurrentIndexes } from './concurrent-index';

// Housekeeping (DECISIONS §9) deletes in batches by age. Each index below lets
// a batch find its rows by a range scan instead of reading the whole table,
// and lets the foreign keys find what points at a deleted row. Already there:
// idempotency_keys (expires_at) and rate_counters (reset_at). The partial
// indexes repeat the conditions of the deletes word for word, which SQLite
// needs to use them. Same indexes on both databases, built concurrently on
// PostgreSQL (concurrent-index.ts).

const INDEXES: ConcurrentIndex[] = [
  { name: 'ix_outbox_published', table: 'outbox', definition: '(published_at) WHERE published_at IS NOT NULL' },
  { name: 'ix_webhook_deliveries_finished', table: 'webhook_deliveries', definition: "(created_at) WHERE state IN ('delivered', 'abandoned')" },
  // A delivery that a replay names is kept; the foreign key's ON DELETE SET NULL looks here too.
  { name: 'ix_webhook_deliveries_replay_of', table: 'webhook_deliveries', definition: '(replay_of) WHERE replay_of IS NOT NULL' },
  { name: 'ix_domains_deleted', table: 'domains', definition: '(deleted_at) WHERE deleted_at IS NOT NULL' },
  { name: 'ix_certificates_domain', table: 'certificates', definition: '(domain_id)' },
  { name: 'ix_traffic_daily_day', table: 'traffic_daily', definition: '(day)' },
];

export class Housekeeping1760000000600 implements DeclaresConcurrentIndexes {
  readonly name = 'Housekeeping1760000000600';
  readonly concurrentIndexes = INDEXES;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDeclaredIndexes(queryRunner, INDEXES);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDeclaredIndexes(queryRunner, INDEXES);
  }
}
