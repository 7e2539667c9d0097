// The data store and the repositories of one unit of work. Every tenant-owned
// query takes the application id as its first argument.
import type { DatabaseKind } from './database-url';
import type { HousekeepingRepository } from './housekeeping/housekeeping.types';
import type { AcmeChallengesRepository } from './repositories/acme-challenges.types';
import type { AcmeOrdersRepository } from './repositories/acme-orders.types';
import type { ApplicationsRepository } from './repositories/applications.types';
import type { AssertionKeysRepository } from './repositories/assertion-keys.types';
import type { CertificatesRepository } from './repositories/certificates.types';
import type { CheckRunsRepository } from './repositories/check-runs.types';
import type { CredentialsRepository } from './repositories/credentials.types';
import type { DiagnosticsRepository } from './repositories/diagnostics.types';
import type { DomainLookupRepository } from './repositories/domain-lookup.types';
import type { EdgeReadsRepository } from './repositories/edge-reads.types';
import type { DomainsRepository } from './repositories/domains.types';
import type { IdempotencyRepository } from './repositories/idempotency.types';
import type { OriginsRepository } from './repositories/origins.types';
import type { OutboxRepository } from './repositories/outbox.types';
import type { RateCountersRepository } from './repositories/rate-counters.types';
import type { SealedValuesRepository } from './repositories/sealed-values.types';
import type { SettingsRepository } from './repositories/settings.types';
import type { TrafficRepository } from './repositories/traffic.types';
import type { WebhookDeliveriesRepository } from './repositories/webhook-deliveries.types';
import type { WebhookDeliveryQueueRepository } from './repositories/webhook-delivery-queue.types';
import type { WebhookSubscriptionsRepository } from './repositories/webhook-subscriptions.types';

/** Repositories bound to one unit of work (a transaction, or the plain connection for reads). */
export interface Repositories {
  applications: ApplicationsRepository;
  credentials: CredentialsRepository;
  domains: DomainsRepository;
  idempotency: IdempotencyRepository;
  outbox: OutboxRepository;
  settings: SettingsRepository;
  rateCounters: RateCountersRepository;
  diagnostics: DiagnosticsRepository;
  origins: OriginsRepository;
  assertionKeys: AssertionKeysRepository;
  traffic: TrafficRepository;
  webhookSubscriptions: WebhookSubscriptionsRepository;
  webhookDeliveries: WebhookDeliveriesRepository;
  webhookDeliveryQueue: WebhookDeliveryQueueRepository;
  checkRuns: CheckRunsRepository;
  certificates: CertificatesRepository;
  acmeChallenges: AcmeChallengesRepository;
  acmeOrders: AcmeOrdersRepository;
  housekeeping: HousekeepingRepository;
  edgeReads: EdgeReadsRepository;
  domainLookup: DomainLookupRepository;
  sealedValues: SealedValuesRepository;
}

export interface DataStore {
  readonly kind: DatabaseKind;
  /** One transaction. On SQLite all units of work are serialized in-process. */
  transaction<T>(fn: (repos: Repositories) => Promise<T>): Promise<T>;
  /** Work outside an explicit transaction (single statements). */
  run<T>(fn: (repos: Repositories) => Promise<T>): Promise<T>;
  migrate(): Promise<string[]>; // names of migrations applied
  pendingMigrations(): Promise<string[]>;
  /** PostgreSQL: indexes of applied migrations still to be built concurrently (missing, or invalid after a failed build); SQLite: none. */
  pendingIndexes(): Promise<string[]>;
  /** Runs the `down` of the newest applied migration; its name, or null when none is applied. */
  revertLastMigration(): Promise<string | null>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
