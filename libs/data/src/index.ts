export type { DataStore, Repositories } from './data-store.types';
export type { DatabaseKind } from './database-url';
export type * from './repositories/acme-challenges.types';
export type * from './repositories/acme-orders.types';
export type * from './repositories/applications.types';
export type * from './repositories/assertion-keys.types';
export type * from './repositories/certificates.types';
export type * from './repositories/check-runs.types';
export type * from './repositories/credentials.types';
export type * from './repositories/diagnostics.types';
export type * from './repositories/domain-lookup.types';
export type * from './repositories/domains.types';
export type * from './repositories/edge-reads.types';
export type * from './repositories/idempotency.types';
export type * from './repositories/origins.types';
export type * from './repositories/outbox.types';
export type * from './repositories/rate-counters.types';
export type * from './repositories/settings.types';
export type * from './repositories/traffic.types';
export type * from './repositories/webhook-deliveries.types';
export type * from './repositories/webhook-subscriptions.types';
export { createDataStore, type DataStoreOptions } from './data-store';
export type * from './housekeeping/housekeeping.types';
export {
  createHousekeeping, startHousekeeping,
  type DeletedRows, type Housekeeping, type HousekeepingOptions, type HousekeepingOutcome, type HousekeepingReport, type PruneStatementEvent,
} from './housekeeping/housekeeping-runner';
export { HOUSEKEEPING_LEASE_KEY, LeaseLostError } from './housekeeping/housekeeping-lease';
export { NestedUnitOfWorkError, UniqueViolation, UNIQUE_CONSTRAINTS, type UniqueConstraint } from './errors';
export { outboxSource } from './outbox-source';
export { pendingDelivery, type PendingDeliveryFields } from './pending-delivery';
export { windowOf } from './repositories/rate-counters.repository';
export { isDatabaseUnavailable } from './database-unavailable';
export { RECENT_RUNS_KEPT } from './migrations/1760000001000-check-confirmation';
