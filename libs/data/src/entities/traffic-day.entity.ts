import { EntitySchema } from 'typeorm';
import type { TrafficDayRow } from '../repositories/traffic.types';
import { bigintAsNumber, type ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const trafficDayEntity = (t: ColumnTypes) =>
  new EntitySchema<TrafficDayRow>({
    name: ENTITY.trafficDay,
    tableName: 'traffic_daily',
    columns: {
      applicationId: { type: t.uuid, name: 'application_id', primary: true },
      day: { type: 'varchar', primary: true },
      requests: { type: t.bigint, transformer: bigintAsNumber },
      responseBytes: { type: t.bigint, name: 'response_bytes', transformer: bigintAsNumber },
    },
  });
