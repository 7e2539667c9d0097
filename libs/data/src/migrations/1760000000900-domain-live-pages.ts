import type { QueryRunner } from 'typeorm';
import { createDeclaredIndexes, dropDeclaredIndexes, type ConcurrentIndex, type DeclaresConcurrentIndexes } from './concurrent-index';

// Pages of an application's live domains (GET /v1/domains without filters).
// The list finds a page's ids in this index alone and reads only those rows:
// an offset skips index entries, not table rows, so a page at offset 900
// reads 50 domains wherever they lie in the table (the domains of one
// application are spread over it, among every other application's). Partial:
// the skipped entries need no row to say whether they are deleted.
// Same index on both databases, built concurrently on PostgreSQL (concurrent-index.ts).

const INDEXES: ConcurrentIndex[] = [{ name: 'ix_domains_application_live', table: 'domains', definition: '(application_id, created_at, id) WHERE deleted_at IS NULL' }];

export class DomainLivePages1760000000900 implements DeclaresConcurrentIndexes {
  readonly name = 'DomainLivePages1760000000900';
  readonly concurrentIndexes = INDEXES;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDeclaredIndexes(queryRunner, INDEXES);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDeclaredIndexes(queryRunner, INDEXES);
  }
}
