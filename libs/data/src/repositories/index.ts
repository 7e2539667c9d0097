import type { EntityManager } from 'typeorm';
import type { DatabaseKind, Repositories } from '../types';
import { TypeOrmApplicationsRepository } from './applications.repository';
import { TypeOrmCredentialsRepository } from './credentials.repository';
import { TypeOrmDomainsRepository } from './domains.repository';
import { TypeOrmIdempotencyRepository } from './idempotency.repository';
import { TypeOrmOutboxRepository } from './outbox.repository';
import { TypeOrmRateCountersRepository } from './rate-counters.repository';
import { TypeOrmSettingsRepository } from './settings.repository';

/** Every repository, bound to the EntityManager of one unit of work. */
export function createRepositories(manager: EntityManager, kind: DatabaseKind): Repositories {
  return {
    applications: new TypeOrmApplicationsRepository(manager, kind),
    credentials: new TypeOrmCredentialsRepository(manager),
    domains: new TypeOrmDomainsRepository(manager),
    idempotency: new TypeOrmIdempotencyRepository(manager),
    outbox: new TypeOrmOutboxRepository(manager),
    settings: new TypeOrmSettingsRepository(manager),
    rateCounters: new TypeOrmRateCountersRepository(manager),
  };
}
