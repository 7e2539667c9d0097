export { registry, enableProcessMetrics, processMetricsSource, type MetricsSource } from './registry';
export {
  METRIC,
  httpMetrics,
  limiterMetrics,
  databaseMetrics,
  checkerMetrics,
  consumerMetrics,
  dispatcherMetrics,
  dispatcherFairnessMetrics,
  setCoolingCollect,
  edgeMetrics,
  setEdgeCollect,
} from './definitions';
export { httpMetricsMiddleware, limiterRejectionTap, UNMATCHED_ROUTE, type HttpMetricsOptions } from './http-metrics';
export { watchDatabase, type DatabaseGaugeOptions } from './database-gauges';
export { routeMatcher } from './route-template';
export { watchCertificateExpiry, watchDirectorySetAside, meteredSetAside } from './definitions';
export { housekeepingMetrics, meteredHousekeeping } from './definitions';
export { ExpiryTracker } from './expiry-tracker';
export { meteredDeadLetters, meteredHandler, CONSUMER_OUTCOMES, type MeteredHandlerOptions } from './metered-handler';
export { SummedHistogram } from './summed-histogram';
