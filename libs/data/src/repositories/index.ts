import type { EntityManager } from 'typeorm';
import type { Repositories } from '../data-store.types';
import type { DatabaseKind } from '../database-url';
import { TypeOrmApplicationsRepository } from './applications.repository';
import { TypeOrmCredentialsRepository } from './credentials.repository';
import { TypeOrmDiagnosticsRepository } from './diagnostics.repository';
import { TypeOrmDomainsRepository } from './domains.repository';
import { TypeOrmIdempotencyRepository } from './idempotency.repository';
import { TypeOrmOutboxRepository } from './outbox.repository';
import { TypeOrmRateCountersRepository } from './rate-counters.repository';
import { TypeOrmSealedValuesRepository } from './sealed-values.repository';
import { TypeOrmSettingsRepository } from './settings.repository';
import { TypeOrmOriginsRepository } from './origins.repository';
import { TypeOrmAssertionKeysRepository } from './assertion-keys.repository';
import { TypeOrmTrafficRepository } from './traffic.repository';
import { TypeOrmWebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { TypeOrmWebhookDeliveryQueueRepository } from './webhook-delivery-queue.repository';
import { TypeOrmWebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import { TypeOrmCheckRunsRepository } from './check-runs.repository';
import { TypeOrmCertificatesRepository } from './certificates.repository';
import { TypeOrmAcmeChallengesRepository } from './acme-challenges.repository';
import { TypeOrmAcmeOrdersRepository } from './acme-orders.repository';
import { TypeOrmEdgeReadsRepository } from './edge-reads.repository';
import { TypeOrmDomainLookupRepository } from './domain-lookup.repository';
import { TypeOrmHousekeepingRepository } from '../housekeeping/housekeeping.repository';

/** Every repository, bound to the EntityManager of one unit of work. */
export function createRepositories(manager: EntityManager, kind: DatabaseKind): Repositories {
  return {
    applications: new TypeOrmApplicationsRepository(manager, kind),
    credentials: new TypeOrmCredentialsRepository(manager, kind),
    domains: new TypeOrmDomainsRepository(manager, kind),
    idempotency: new TypeOrmIdempotencyRepository(manager, kind),
    outbox: new TypeOrmOutboxRepository(manager),
    settings: new TypeOrmSettingsRepository(manager),
    rateCounters: new TypeOrmRateCountersRepository(manager),
    diagnostics: new TypeOrmDiagnosticsRepository(manager, kind),
    origins: new TypeOrmOriginsRepository(manager),
    assertionKeys: new TypeOrmAssertionKeysRepository(manager),
    traffic: new TypeOrmTrafficRepository(manager),
    webhookSubscriptions: new TypeOrmWebhookSubscriptionsRepository(manager, kind),
    webhookDeliveries: new TypeOrmWebhookDeliveriesRepository(manager, kind),
    webhookDeliveryQueue: new TypeOrmWebhookDeliveryQueueRepository(manager, kind),
    checkRuns: new TypeOrmCheckRunsRepository(manager, kind),
    certificates: new TypeOrmCertificatesRepository(manager),
    acmeChallenges: new TypeOrmAcmeChallengesRepository(manager),
    acmeOrders: new TypeOrmAcmeOrdersRepository(manager, kind),
    housekeeping: new TypeOrmHousekeepingRepository(manager, kind),
    edgeReads: new TypeOrmEdgeReadsRepository(manager, kind),
    domainLookup: new TypeOrmDomainLookupRepository(manager),
    sealedValues: new TypeOrmSealedValuesRepository(manager, kind),
  };
}
