export { boundPort, closeServer, listen } from './http-server';
export { createHousekeeping, startHousekeeping, type Housekeeping, type HousekeepingOptions, type PruneStatementEvent } from './housekeeping-runner';
export { opsHandler, type HealthState, type OpsMetricsSource } from './ops-handler';
export { runMain } from './run-main';
export { onShutdown, SHUTDOWN_DEADLINE_MS, type ShutdownStep } from './shutdown';
export { openSplitService, type SplitService, type SplitServiceOptions } from './split-service';
