import { Between, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { queryRows } from '../sql';
import type { TrafficDayRow, TrafficRepository } from './traffic.types';

// One atomic upsert: concurrent edges flushing the same day add up, none overwrites another.
const ADD = `
  INSERT INTO traffic_daily (application_id, day, requests, response_bytes)
  VALUES (:applicationId, :day, :requests, :bytes)
  ON CONFLICT (application_id, day) DO UPDATE SET
    requests = traffic_daily.requests + excluded.requests,
    response_bytes = traffic_daily.response_bytes + excluded.response_bytes`;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function checkDay(day: string): void {
  if (!DAY.test(day)) throw new RangeError(`A traffic day is written YYYY-MM-DD (got ${JSON.stringify(day)}).`);
}

function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer (got ${value}).`);
}

export class TypeOrmTrafficRepository implements TrafficRepository {
  private readonly rows: Repository<TrafficDayRow>;

  constructor(private readonly manager: EntityManager) {
    this.rows = manager.getRepository<TrafficDayRow>(ENTITY.trafficDay);
  }

  async addTraffic(applicationId: string, day: string, requests: number, bytes: number): Promise<void> {
    checkDay(day);
    checkCount('requests', requests);
    checkCount('bytes', bytes);
    await queryRows(this.manager, ADD, { applicationId, day, requests, bytes });
  }

  range(applicationId: string, fromDay: string, toDay: string): Promise<TrafficDayRow[]> {
    checkDay(fromDay);
    checkDay(toDay);
    return this.rows.find({ where: { applicationId, day: Between(fromDay, toDay) }, order: { day: 'ASC' } });
  }
}
