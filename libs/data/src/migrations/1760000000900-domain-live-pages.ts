import type { MigrationInterface, QueryRunner } from 'typeorm';

// Pages of an application's live domains (GET /v1/domains without filters).
// The list finds a page's ids in this index alone and reads only those rows:
// an offset skips index entries, not table rows, so a page at offset 900
// reads 50 domains wherever they lie in the table (the domains of one
// application are spread over it, among every other application's). Partial:
// the skipped entries need no row to say whether they are deleted.
// Same statements on both databases.

const UP = ['CREATE INDEX ix_domains_application_live ON domains (application_id, created_at, id) WHERE deleted_at IS NULL'];

const DOWN = ['DROP INDEX ix_domains_application_live'];

export class DomainLivePages1760000000900 implements MigrationInterface {
  readonly name = 'DomainLivePages1760000000900';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
