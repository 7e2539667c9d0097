import type { MigrationInterface, QueryRunner } from 'typeorm';

// The ACME order a checker is carrying out for a hostname, kept from the
// moment the CA accepts it until its certificate is stored, so that a checker
// killed meanwhile leaves it for the next try. Its own table, not a settings
// value: the order URL stays readable (the certificate key is sealed bound to
// the hostname and the order), and `saved_at` and `expires_at` are compared
// with the database's clock in SQL. Orders saved as settings values before are
// dropped: such an order is placed again (one more order at most per hostname).

const up = (timestamp: string) => [
  `CREATE TABLE acme_orders (
    hostname varchar(253) NOT NULL,
    order_url text NOT NULL,
    key_sealed text NOT NULL,
    replaces varchar(64),
    saved_at ${timestamp} NOT NULL,
    expires_at ${timestamp},
    CONSTRAINT pk_acme_orders PRIMARY KEY (hostname)
  )`,
  `DELETE FROM settings WHERE "key" LIKE 'acme_order:%'`,
];

const DOWN = ['DROP TABLE acme_orders'];

const isPostgres = (queryRunner: QueryRunner) => queryRunner.connection.options.type === 'postgres';

export class AcmeOrders1795843500000 implements MigrationInterface {
  readonly name = 'AcmeOrders1795843500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of up(isPostgres(queryRunner) ? 'timestamptz' : 'datetime')) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
