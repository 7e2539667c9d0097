import type { MigrationInterface, QueryRunner } from 'typeorm';

// An outbox row the message catalog refuses is set aside (DECISIONS §9): kept,
// with when and why, and no longer read by the relay, so it never blocks the
// rows after it. The relay's index covers the rows still to publish only.

function up(timestamp: string): string[] {
  return [
    `ALTER TABLE outbox ADD COLUMN set_aside_at ${timestamp}`,
    `ALTER TABLE outbox ADD COLUMN set_aside_reason text`,
    'DROP INDEX ix_outbox_unpublished',
    'CREATE INDEX ix_outbox_unpublished ON outbox (seq) WHERE published_at IS NULL AND set_aside_at IS NULL',
  ];
}

const DOWN = [
  'DROP INDEX ix_outbox_unpublished',
  'CREATE INDEX ix_outbox_unpublished ON outbox (seq) WHERE published_at IS NULL',
  'ALTER TABLE outbox DROP COLUMN set_aside_reason',
  'ALTER TABLE outbox DROP COLUMN set_aside_at',
];

export class OutboxSetAside1760000000500 implements MigrationInterface {
  readonly name = 'OutboxSetAside1760000000500';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    for (const statement of up(postgres ? 'timestamptz' : 'text')) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
