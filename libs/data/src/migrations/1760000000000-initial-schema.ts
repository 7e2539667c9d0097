import type { MigrationInterface, QueryRunner } from 'typeorm';
import * as postgres from './initial-schema.postgres';
import * as sqlite from './initial-schema.sqlite';

function ddlFor(queryRunner: QueryRunner): { UP: string[]; DOWN: string[] } {
  return queryRunner.connection.options.type === 'postgres' ? postgres : sqlite;
}

export class InitialSchema1760000000000 implements MigrationInterface {
  readonly name = 'InitialSchema1760000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of ddlFor(queryRunner).UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of ddlFor(queryRunner).DOWN) await queryRunner.query(statement);
  }
}
