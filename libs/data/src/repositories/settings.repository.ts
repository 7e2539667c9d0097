import type { EntityManager, Repository } from 'typeorm';
import { ENTITY, type SettingRow } from '../entities';
import { queryRows } from '../sql';
import type { SettingsRepository } from './settings.types';

// Insert-or-nothing in one statement: of several processes racing for a key, exactly one gets a row back.
const INSERT_IF_ABSENT = `
  INSERT INTO settings ("key", value, updated_at) VALUES (:key, :value, :updatedAt)
  ON CONFLICT ("key") DO NOTHING
  RETURNING "key"`;

export class TypeOrmSettingsRepository implements SettingsRepository {
  private readonly rows: Repository<SettingRow>;

  constructor(private readonly manager: EntityManager) {
    this.rows = manager.getRepository<SettingRow>(ENTITY.setting);
  }

  async get(key: string): Promise<string | null> {
    return (await this.rows.findOneBy({ key }))?.value ?? null;
  }

  async set(key: string, value: string): Promise<void> {
    await this.rows.upsert({ key, value, updatedAt: new Date() }, ['key']);
  }

  async setIfAbsent(key: string, value: string): Promise<boolean> {
    const written = await queryRows(this.manager, INSERT_IF_ABSENT, { key, value, updatedAt: new Date() });
    return written.length === 1;
  }

  // One UPDATE (or DELETE) with the old value in its WHERE: of two processes racing to replace the same
  // value, the second one's statement finds it changed (PostgreSQL re-reads the row once the first commits).
  async replaceIf(key: string, expected: string, value: string): Promise<boolean> {
    return ((await this.rows.update({ key, value: expected }, { value, updatedAt: new Date() })).affected ?? 0) === 1;
  }

  async delete(key: string): Promise<void> {
    await this.rows.delete({ key });
  }

  async deleteIf(key: string, expected: string): Promise<boolean> {
    return ((await this.rows.delete({ key, value: expected })).affected ?? 0) === 1;
  }
}
