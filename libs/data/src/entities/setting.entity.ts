import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export interface SettingRow {
  key: string;
  value: string;
  updatedAt: Date;
}

export const settingEntity = (t: ColumnTypes) =>
  new EntitySchema<SettingRow>({
    name: ENTITY.setting,
    tableName: 'settings',
    columns: {
      key: { type: 'varchar', primary: true },
      value: { type: 'text' },
      updatedAt: { type: t.timestamp, name: 'updated_at' },
    },
  });
