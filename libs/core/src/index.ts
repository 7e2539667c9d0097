export * from './errors';
export * from './hostname';
export * from './domain-status';
export * from './idempotency';
export * from './credentials';
export * from './dns-records';
export * from './limits';
export * from './time';
