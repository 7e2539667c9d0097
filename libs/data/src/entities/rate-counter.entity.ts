import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export interface RateCounterRow {
  key: string;
  windowStart: Date;
  resetAt: Date; // end of the window
  count: number;
}

export const rateCounterEntity = (t: ColumnTypes) =>
  new EntitySchema<RateCounterRow>({
    name: ENTITY.rateCounter,
    tableName: 'rate_counters',
    columns: {
      key: { type: 'varchar', primary: true },
      windowStart: { type: t.timestamp, name: 'window_start' },
      resetAt: { type: t.timestamp, name: 'reset_at' },
      count: { type: 'integer' },
    },
  });
