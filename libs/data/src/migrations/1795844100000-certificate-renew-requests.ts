import type { MigrationInterface, QueryRunner } from 'typeorm';

// A certificate the operator asked to be issued again (`cdctl certificate
// renew`): the checker orders a new one at the next check of its domain, and
// storing the new certificate clears the mark. The old one serves meanwhile.

const DOWN = ['ALTER TABLE certificates DROP COLUMN renew_requested_at'];

const isPostgres = (queryRunner: QueryRunner) => queryRunner.connection.options.type === 'postgres';

export class CertificateRenewRequests1795844100000 implements MigrationInterface {
  readonly name = 'CertificateRenewRequests1795844100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE certificates ADD COLUMN renew_requested_at ${isPostgres(queryRunner) ? 'timestamptz' : 'datetime'}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
