import type { MigrationInterface, QueryRunner } from 'typeorm';

// The checker: a lease on domains so two replicas never check one domain at
// once, the number of checks done (it indexes CHECK_SCHEDULE_PENDING), and the
// certificates served by the edges (the doctor counts `not_after` from here),
// and the ACME HTTP-01 challenges the edges answer.

function up(uuid: string, timestamp: string): string[] {
  return [
    `ALTER TABLE domains ADD COLUMN check_count integer NOT NULL DEFAULT 0`,
    `ALTER TABLE domains ADD COLUMN leased_until ${timestamp}`,
    `ALTER TABLE domains ADD COLUMN leased_by varchar(64)`,
    `CREATE TABLE certificates (
      hostname varchar(253) NOT NULL,
      domain_id ${uuid} NOT NULL,
      issuer varchar(16) NOT NULL,
      pem_chain text NOT NULL,
      key_sealed text NOT NULL,
      not_before ${timestamp} NOT NULL,
      not_after ${timestamp} NOT NULL,
      created_at ${timestamp} NOT NULL,
      CONSTRAINT pk_certificates PRIMARY KEY (hostname),
      CONSTRAINT fk_certificates_domain FOREIGN KEY (domain_id) REFERENCES domains (id) ON DELETE CASCADE
    )`,
    `CREATE INDEX ix_certificates_not_after ON certificates (not_after)`,
    // HTTP-01 answers every edge serves at /.well-known/acme-challenge/<token> while an order runs.
    `CREATE TABLE acme_challenges (
      token varchar(255) NOT NULL,
      hostname varchar(253) NOT NULL,
      key_authorization text NOT NULL,
      created_at ${timestamp} NOT NULL,
      CONSTRAINT pk_acme_challenges PRIMARY KEY (token)
    )`,
  ];
}

const DOWN = [
  'DROP TABLE acme_challenges',
  'DROP TABLE certificates',
  'ALTER TABLE domains DROP COLUMN leased_by',
  'ALTER TABLE domains DROP COLUMN leased_until',
  'ALTER TABLE domains DROP COLUMN check_count',
];

export class Checker1760000000300 implements MigrationInterface {
  readonly name = 'Checker1760000000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    for (const statement of postgres ? up('uuid', 'timestamptz') : up('varchar(36)', 'text')) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
