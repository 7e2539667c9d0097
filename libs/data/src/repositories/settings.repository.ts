import type { EntityManager, Repository } from 'typeorm';
import { ENTITY, type SettingRow } from '../entities';
import type { SettingsRepository } from '../types';

export class TypeOrmSettingsRepository implements SettingsRepository {
  private readonly rows: Repository<SettingRow>;

  constructor(manager: EntityManager) {
    this.rows = manager.getRepository<SettingRow>(ENTITY.setting);
  }

  async get(key: string): Promise<string | null> {
    return (await this.rows.findOneBy({ key }))?.value ?? null;
  }

  async set(key: string, value: string): Promise<void> {
    await this.rows.upsert({ key, value, updatedAt: new Date() }, ['key']);
  }

  async delete(key: string): Promise<void> {
    await this.rows.delete({ key });
  }
}
