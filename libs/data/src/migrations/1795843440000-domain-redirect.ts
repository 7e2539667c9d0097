import type { MigrationInterface, QueryRunner } from 'typeorm';

// DECISIONS §12: a domain may redirect every request to another live domain of
// its application (`customer.com` -> `www.customer.com`). The target's hostname
// is kept as given at create; the edge looks it up at each request, so a target
// deleted later is seen at once. Set only at create: the edge's change feed
// need not watch it.

const UP = ['ALTER TABLE domains ADD COLUMN redirect_to varchar(255)'];
const DOWN = ['ALTER TABLE domains DROP COLUMN redirect_to'];

export class DomainRedirect1795843440000 implements MigrationInterface {
  readonly name = 'DomainRedirect1795843440000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
