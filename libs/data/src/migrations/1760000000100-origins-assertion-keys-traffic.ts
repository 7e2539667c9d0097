import type { MigrationInterface, QueryRunner } from 'typeorm';

// Origins, assertion keys and daily traffic counters. Same shapes on both
// databases; SQLite keeps uuids and timestamps as text (see the initial schema).

const POSTGRES = {
  UP: [
    `CREATE TABLE origins (
      id uuid NOT NULL,
      application_id uuid NOT NULL,
      url text NOT NULL,
      health_path text NOT NULL,
      status varchar(32) NOT NULL,
      last_verified_at timestamptz,
      last_error text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CONSTRAINT pk_origins PRIMARY KEY (id),
      CONSTRAINT fk_origins_application FOREIGN KEY (application_id) REFERENCES applications (id) ON DELETE CASCADE,
      CONSTRAINT ck_origins_status CHECK (status IN ('pending_verification', 'verified', 'active', 'retired'))
    )`,
    `CREATE INDEX ix_origins_application ON origins (application_id, created_at, id)`,
    // An application has at most one active origin, whatever the races.
    `CREATE UNIQUE INDEX uq_origins_active ON origins (application_id) WHERE status = 'active'`,

    `CREATE TABLE assertion_keys (
      kid varchar(64) NOT NULL,
      application_id uuid NOT NULL,
      secret_sealed text NOT NULL,
      created_at timestamptz NOT NULL,
      revoked_at timestamptz,
      CONSTRAINT pk_assertion_keys PRIMARY KEY (kid),
      CONSTRAINT fk_assertion_keys_application FOREIGN KEY (application_id) REFERENCES applications (id) ON DELETE CASCADE
    )`,
    `CREATE INDEX ix_assertion_keys_application ON assertion_keys (application_id, created_at)`,

    `CREATE TABLE traffic_daily (
      application_id uuid NOT NULL,
      day varchar(10) NOT NULL,
      requests bigint NOT NULL DEFAULT 0,
      response_bytes bigint NOT NULL DEFAULT 0,
      CONSTRAINT pk_traffic_daily PRIMARY KEY (application_id, day),
      CONSTRAINT fk_traffic_daily_application FOREIGN KEY (application_id) REFERENCES applications (id) ON DELETE CASCADE
    )`,
  ],
  DOWN: ['DROP TABLE traffic_daily', 'DROP TABLE assertion_keys', 'DROP TABLE origins'],
};

const SQLITE = {
  UP: [
    `CREATE TABLE origins (
      id varchar(36) NOT NULL,
      application_id varchar(36) NOT NULL,
      url text NOT NULL,
      health_path text NOT NULL,
      status varchar(32) NOT NULL,
      last_verified_at text,
      last_error text,
      created_at text NOT NULL,
      updated_at text NOT NULL,
      CONSTRAINT pk_origins PRIMARY KEY (id),
      CONSTRAINT fk_origins_application FOREIGN KEY (application_id) REFERENCES applications (id) ON DELETE CASCADE,
      CONSTRAINT ck_origins_status CHECK (status IN ('pending_verification', 'verified', 'active', 'retired'))
    )`,
    `CREATE INDEX ix_origins_application ON origins (application_id, created_at, id)`,
    `CREATE UNIQUE INDEX uq_origins_active ON origins (application_id) WHERE status = 'active'`,

    `CREATE TABLE assertion_keys (
      kid varchar(64) NOT NULL,
      application_id varchar(36) NOT NULL,
      secret_sealed text NOT NULL,
      created_at text NOT NULL,
      revoked_at text,
      CONSTRAINT pk_assertion_keys PRIMARY KEY (kid),
      CONSTRAINT fk_assertion_keys_application FOREIGN KEY (application_id) REFERENCES applications (id) ON DELETE CASCADE
    )`,
    `CREATE INDEX ix_assertion_keys_application ON assertion_keys (application_id, created_at)`,

    `CREATE TABLE traffic_daily (
      application_id varchar(36) NOT NULL,
      day varchar(10) NOT NULL,
      requests integer NOT NULL DEFAULT 0,
      response_bytes integer NOT NULL DEFAULT 0,
      CONSTRAINT pk_traffic_daily PRIMARY KEY (application_id, day),
      CONSTRAINT fk_traffic_daily_application FOREIGN KEY (application_id) REFERENCES applications (id) ON DELETE CASCADE
    )`,
  ],
  DOWN: ['DROP TABLE traffic_daily', 'DROP TABLE assertion_keys', 'DROP TABLE origins'],
};

function ddlFor(queryRunner: QueryRunner): { UP: string[]; DOWN: string[] } {
  return queryRunner.connection.options.type === 'postgres' ? POSTGRES : SQLITE;
}

export class OriginsAssertionKeysTraffic1760000000100 implements MigrationInterface {
  readonly name = 'OriginsAssertionKeysTraffic1760000000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of ddlFor(queryRunner).UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of ddlFor(queryRunner).DOWN) await queryRunner.query(statement);
  }
}
