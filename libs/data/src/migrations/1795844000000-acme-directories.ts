import type { MigrationInterface, QueryRunner } from 'typeorm';

// DECISIONS §14: more than one ACME directory. A certificate keeps the
// directory that issued it (its renewal goes there first; the operator's
// domain lookup shows it), and a saved order the directory that accepted it
// (it is carried on there alone). Rows from before stay null: they came from
// the one directory there was.

const UP = [
  'ALTER TABLE certificates ADD COLUMN directory_url text',
  'ALTER TABLE acme_orders ADD COLUMN directory_url text',
];
const DOWN = [
  'ALTER TABLE acme_orders DROP COLUMN directory_url',
  'ALTER TABLE certificates DROP COLUMN directory_url',
];

export class AcmeDirectories1795844000000 implements MigrationInterface {
  readonly name = 'AcmeDirectories1795844000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
