export * from './types';
export { createDataStore, type DataStoreLogger, type DataStoreOptions } from './data-store';
export { NestedUnitOfWorkError, UniqueViolation, UNIQUE_CONSTRAINTS, type UniqueConstraint } from './errors';
export { outboxSource } from './outbox-source';
export { pendingDelivery, type PendingDeliveryFields } from './pending-delivery';
export { windowOf } from './repositories/rate-counters.repository';
