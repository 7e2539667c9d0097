import type { MigrationInterface, QueryRunner } from 'typeorm';

// Each application counts its live domains in its own row. A create then
// checks and raises the count in one conditional UPDATE, so the live-domain
// limit holds under concurrent creates without counting the domains table
// while the application's row is locked.

const UP = [
  `ALTER TABLE applications ADD COLUMN live_domains integer NOT NULL DEFAULT 0`,
  `UPDATE applications SET live_domains = (
     SELECT COUNT(*) FROM domains WHERE domains.application_id = applications.id AND domains.deleted_at IS NULL
   )`,
];

const DOWN = ['ALTER TABLE applications DROP COLUMN live_domains'];

export class LiveDomainCounter1760000000400 implements MigrationInterface {
  readonly name = 'LiveDomainCounter1760000000400';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
