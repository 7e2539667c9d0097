import type { MigrationInterface, QueryRunner } from 'typeorm';

// Webhook subscriptions, their signing secrets, deliveries and attempts. Same
// shapes on both databases; SQLite keeps uuids and timestamps as text (see the
// initial schema).

function tables(uuid: string, timestamp: string): string[] {
  return [
    `CREATE TABLE webhook_subscriptions (
      id ${uuid} NOT NULL,
      application_id ${uuid} NOT NULL,
      url text NOT NULL,
      events text NOT NULL,
      status varchar(16) NOT NULL,
      created_at ${timestamp} NOT NULL,
      updated_at ${timestamp} NOT NULL,
      revoked_at ${timestamp},
      CONSTRAINT pk_webhook_subscriptions PRIMARY KEY (id),
      CONSTRAINT fk_webhook_subscriptions_application FOREIGN KEY (application_id) REFERENCES applications (id),
      CONSTRAINT ck_webhook_subscriptions_status CHECK (status IN ('active', 'revoked'))
    )`,
    `CREATE INDEX ix_webhook_subscriptions_application ON webhook_subscriptions (application_id, created_at, id)`,

    // Several secrets sign at once during the 24 hours after a rotation.
    `CREATE TABLE webhook_secrets (
      id ${uuid} NOT NULL,
      subscription_id ${uuid} NOT NULL,
      secret_sealed text NOT NULL,
      created_at ${timestamp} NOT NULL,
      expires_at ${timestamp},
      CONSTRAINT pk_webhook_secrets PRIMARY KEY (id),
      CONSTRAINT fk_webhook_secrets_subscription FOREIGN KEY (subscription_id) REFERENCES webhook_subscriptions (id) ON DELETE CASCADE
    )`,
    `CREATE INDEX ix_webhook_secrets_subscription ON webhook_secrets (subscription_id, created_at)`,

    `CREATE TABLE webhook_deliveries (
      id ${uuid} NOT NULL,
      application_id ${uuid} NOT NULL,
      subscription_id ${uuid} NOT NULL,
      event_id ${uuid} NOT NULL,
      event_type varchar(64) NOT NULL,
      payload text NOT NULL,
      state varchar(16) NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at ${timestamp},
      last_attempt_at ${timestamp},
      last_status_code integer,
      last_error text,
      created_at ${timestamp} NOT NULL,
      delivered_at ${timestamp},
      replay_of ${uuid},
      lease_id ${uuid},
      CONSTRAINT pk_webhook_deliveries PRIMARY KEY (id),
      CONSTRAINT fk_webhook_deliveries_subscription FOREIGN KEY (subscription_id) REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
      CONSTRAINT fk_webhook_deliveries_replay_of FOREIGN KEY (replay_of) REFERENCES webhook_deliveries (id) ON DELETE SET NULL,
      CONSTRAINT ck_webhook_deliveries_state CHECK (state IN ('pending', 'delivered', 'abandoned'))
    )`,
    // One original delivery per subscription and event: a redelivered event.emitted creates nothing twice.
    `CREATE UNIQUE INDEX uq_webhook_deliveries_event ON webhook_deliveries (subscription_id, event_id) WHERE replay_of IS NULL`,
    `CREATE INDEX ix_webhook_deliveries_subscription ON webhook_deliveries (subscription_id, created_at, id)`,
    // The poller's query: due pending deliveries.
    `CREATE INDEX ix_webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending'`,

    `CREATE TABLE webhook_attempts (
      id ${uuid} NOT NULL,
      delivery_id ${uuid} NOT NULL,
      attempt integer NOT NULL,
      started_at ${timestamp} NOT NULL,
      duration_ms integer NOT NULL,
      status_code integer,
      error text,
      CONSTRAINT pk_webhook_attempts PRIMARY KEY (id),
      CONSTRAINT fk_webhook_attempts_delivery FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      CONSTRAINT uq_webhook_attempts_number UNIQUE (delivery_id, attempt)
    )`,
  ];
}

const DOWN = ['DROP TABLE webhook_attempts', 'DROP TABLE webhook_deliveries', 'DROP TABLE webhook_secrets', 'DROP TABLE webhook_subscriptions'];

function upFor(queryRunner: QueryRunner): string[] {
  return queryRunner.connection.options.type === 'postgres' ? tables('uuid', 'timestamptz') : tables('varchar(36)', 'text');
}

export class Webhooks1760000000200 implements MigrationInterface {
  readonly name = 'Webhooks1760000000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of upFor(queryRunner)) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
