import { HOUSEKEEPING_TABLES } from '@cds/core';
import type { HousekeepingReport } from '@cds/data';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { registry } from './registry';
import { SummedHistogram } from './summed-histogram';

// Metric groups are registered on first use, so a process only exposes the
// metrics of the services it runs (the API pod shows no checker series).
function group<T>(define: (registers: Registry[]) => T): () => T {
  let made: T | undefined;
  return () => (made ??= define([registry]));
}

/** Seconds: from 5 ms (an API read) to 30 s (an origin probe or webhook timeout). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;
/** Seconds a message waited: up to the longest retry delay of a broker outage. */
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600] as const;

export const METRIC = {
  httpRequests: 'cds_http_requests_total',
  httpDuration: 'cds_http_request_duration_seconds',
  limiterRejections: 'cds_limiter_rejections_total',
  outboxBacklog: 'cds_outbox_backlog',
  outboxOldestAge: 'cds_outbox_oldest_age_seconds',
  outboxSetAside: 'cds_outbox_set_aside_total',
  webhookPending: 'cds_webhook_deliveries_pending',
  certificatesExpiring: 'cds_certificates_expiring',
  metricsSourceErrors: 'cds_metrics_source_errors_total',
  checks: 'cds_checks_total',
  checkDuration: 'cds_check_duration_seconds',
  unconfirmedFailures: 'cds_check_unconfirmed_failures_total',
  confirmedFailures: 'cds_check_confirmed_failures_total',
  domainsConfirming: 'cds_domains_confirming',
  acmeOrders: 'cds_acme_orders_total',
  acmeFailures: 'cds_acme_order_failures_total',
  acmeBudgetRefusals: 'cds_acme_budget_refusals_total',
  acmeDirectoryOrders: 'cds_acme_directory_orders_total',
  acmeDirectoryFailures: 'cds_acme_directory_failures_total',
  acmeDirectorySetAside: 'cds_acme_directory_set_aside',
  certificateExpiry: 'cds_certificate_expiry_timestamp_seconds',
  consumed: 'cds_messages_consumed_total',
  consumerLag: 'cds_consumer_lag_seconds',
  deliveries: 'cds_webhook_deliveries_total',
  deliveryDuration: 'cds_webhook_delivery_duration_seconds',
  webhookCooling: 'cds_webhook_subscriptions_cooling',
  webhookDeferred: 'cds_webhook_deliveries_deferred_total',
  edgeRequests: 'cds_edge_requests_total',
  edgeBytes: 'cds_edge_response_bytes_total',
  edgeDuration: 'cds_edge_request_duration_seconds',
  cacheLookups: 'cds_cache_lookups_total',
  housekeepingDeleted: 'cds_housekeeping_deleted_rows_total',
  housekeepingRuns: 'cds_housekeeping_runs_total',
  housekeepingDuration: 'cds_housekeeping_run_duration_seconds',
  housekeepingLastSuccess: 'cds_housekeeping_last_success_timestamp_seconds',
  housekeepingInterval: 'cds_housekeeping_interval_seconds',
} as const;

/**
 * HTTP servers (api; edge uses edgeMetrics). `route` is the route template, never the raw URL.
 * `server`, not `service`: Prometheus Operator adds a `service` target label, which would rename ours.
 */
export const httpMetrics = group((registers) => ({
  requests: new Counter({ name: METRIC.httpRequests, help: 'HTTP requests answered, by route template and status.', labelNames: ['server', 'method', 'route', 'status'] as const, registers }),
  duration: new Histogram({ name: METRIC.httpDuration, help: 'Time to answer an HTTP request.', labelNames: ['server', 'method', 'route', 'status'] as const, buckets: [...LATENCY_BUCKETS], registers }),
}));

/** Requests refused by a rate limiter. `limiter`: api_requests, auth_failures, operator_auth_failures, recheck, webhook_pending, backup, proxied_requests_per_second, proxied_requests_per_minute. */
export const limiterMetrics = group((registers) => ({
  rejections: new Counter({ name: METRIC.limiterRejections, help: 'Requests refused by a rate limiter.', labelNames: ['server', 'limiter'] as const, registers }),
}));

let databaseRefresh: () => Promise<void> = () => Promise.resolve();

/** What the database gauges run at scrape time (set by watchDatabase). */
export function setDatabaseRefresh(refresh: () => Promise<void>): void {
  databaseRefresh = refresh;
}

/** Gauges read from the database at scrape time (see watchDatabase): any process with a store may export them. */
export const databaseMetrics = group((registers) => {
  // prom-client awaits collect() before serializing a gauge; one cached read serves all five.
  const collect = () => databaseRefresh();
  return {
    outboxBacklog: new Gauge({ name: METRIC.outboxBacklog, help: 'Outbox rows not yet published to the bus.', registers, collect }),
    outboxOldestAge: new Gauge({ name: METRIC.outboxOldestAge, help: 'Age of the oldest unpublished outbox row; 0 when none.', registers, collect }),
    webhookPending: new Gauge({ name: METRIC.webhookPending, help: 'Webhook deliveries waiting for an attempt.', registers, collect }),
    certificatesExpiring: new Gauge({ name: METRIC.certificatesExpiring, help: 'Certificates whose notAfter is within the window (expired ones included).', labelNames: ['within'] as const, registers, collect }),
    domainsConfirming: new Gauge({
      name: METRIC.domainsConfirming, help: 'Ready domains with a check failure being confirmed (DECISIONS §11): still served, rechecked on CHECK_SCHEDULE_CONFIRM.', registers, collect,
    }),
    sourceErrors: new Counter({ name: METRIC.metricsSourceErrors, help: 'Failed reads of database-backed gauges.', labelNames: ['source'] as const, registers }),
  };
});

/** The outbox relay (api, checker, all-in-one): rows the message catalog refuses, set aside instead of published (DECISIONS §9). */
export const outboxRelayMetrics = group((registers) => ({
  setAside: new Counter({ name: METRIC.outboxSetAside, help: 'Outbox rows set aside, unpublished, because the message catalog refuses them.', registers }),
}));

/** The relay's onSetAside hook (OutboxRelayOptions): counts the rows; the series shows 0 from this call on. */
export function meteredSetAside(): (rows: number) => void {
  const { setAside } = outboxRelayMetrics();
  return (rows) => setAside.inc(rows);
}

/** Seconds a housekeeping run took: a quiet table to a backlog of millions of rows. */
const HOUSEKEEPING_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900] as const;

/**
 * Housekeeping (api, all-in-one; DECISIONS §9). `outcome` success|failure|stopped|busy|not_due;
 * the last-success time is the deployment's (read from the lease row), so every replica shows it.
 */
export const housekeepingMetrics = group((registers) => ({
  deleted: new Counter({ name: METRIC.housekeepingDeleted, help: 'Rows deleted by housekeeping, by table.', labelNames: ['table'] as const, registers }),
  runs: new Counter({ name: METRIC.housekeepingRuns, help: 'Housekeeping ticks, by outcome (busy and not_due: another replica runs or ran it).', labelNames: ['outcome'] as const, registers }),
  duration: new Histogram({ name: METRIC.housekeepingDuration, help: 'Time a housekeeping run took (runs that held the lease).', buckets: [...HOUSEKEEPING_BUCKETS], registers }),
  lastSuccess: new Gauge({ name: METRIC.housekeepingLastSuccess, help: 'End of the last successful housekeeping run in the deployment (Unix seconds); 0 until one is known.', registers }),
  interval: new Gauge({ name: METRIC.housekeepingInterval, help: 'HOUSEKEEPING_INTERVAL in seconds (the alert allows three of them).', registers }),
}));

/** The housekeeping runner's onRun hook (HousekeepingOptions): every table's series shows 0 from this call on. */
export function meteredHousekeeping(intervalMs: number): (report: HousekeepingReport) => void {
  const { deleted, runs, duration, lastSuccess, interval } = housekeepingMetrics();
  interval.set(intervalMs / 1000);
  for (const table of HOUSEKEEPING_TABLES) deleted.inc({ table }, 0);
  return (report) => {
    runs.inc({ outcome: report.outcome });
    for (const table of HOUSEKEEPING_TABLES) if (report.deleted[table] > 0) deleted.inc({ table }, report.deleted[table]);
    if (report.outcome === 'success' || report.outcome === 'failure' || report.outcome === 'stopped') duration.observe(report.durationMs / 1000);
    if (report.lastSuccessAt) lastSuccess.set(report.lastSuccessAt.getTime() / 1000);
  };
}

let directorySetAsideSource: (() => ReadonlyMap<string, boolean>) | null = null;

/** The reader of which ACME directories are set aside now (read at scrape time). */
export function watchDirectorySetAside(source: () => ReadonlyMap<string, boolean>): void {
  directorySetAsideSource = source;
}

const expirySources = new Set<() => Date | null>();

/**
 * Adds a reader of the earliest notAfter a checker knows (read at scrape
 * time; the gauge shows the earliest over all readers). Returns its removal.
 */
export function watchCertificateExpiry(source: () => Date | null): () => void {
  expirySources.add(source);
  return () => {
    expirySources.delete(source);
  };
}

/** The earliest of the readers' answers, in Unix seconds; 0 when none knows a certificate. */
function earliestExpirySeconds(): number {
  let earliest = Number.POSITIVE_INFINITY;
  for (const source of expirySources) {
    const at = source();
    if (at) earliest = Math.min(earliest, at.getTime() / 1000);
  }
  return Number.isFinite(earliest) ? earliest : 0;
}

/**
 * checker: `check` ownership|routing|certificate|origin, `result` passing|failing|pending;
 * ACME `result` issued|failed, failures by `reason` (the check error code);
 * orders that waited for the ACME order budget by `scope` deployment|application;
 * per ACME directory (DECISIONS §14, `directory` its URL): orders by `result`, the CA's failures by `reason`
 * (unreachable|server_error|rate_limited|account), and 1 while it is set aside;
 * certificate expiry per certificate's hostname is too many series: one gauge of the earliest notAfter.
 */
export const checkerMetrics = group((registers) => {
  const earliestCertificateExpiry: Gauge = new Gauge({
    name: METRIC.certificateExpiry,
    help: 'notAfter (Unix seconds) of the live certificate (both DNS checks pass) that expires first, among those this checker saw in its recent runs; 0 when none.',
    registers,
    collect: () => earliestCertificateExpiry.set(earliestExpirySeconds()),
  });
  return {
    checks: new Counter({ name: METRIC.checks, help: 'Checks run, by type and result.', labelNames: ['check', 'result'] as const, registers }),
    checkDuration: new Histogram({ name: METRIC.checkDuration, help: 'Time one check took.', labelNames: ['check'] as const, buckets: [...LATENCY_BUCKETS], registers }),
    unconfirmedFailures: new Counter({
      name: METRIC.unconfirmedFailures,
      help: 'Failed checks of ready domains not (yet) confirmed (DECISIONS §11): the domain stayed ready, by check and kind (conclusive, inconclusive).',
      labelNames: ['check', 'kind'] as const, registers,
    }),
    confirmedFailures: new Counter({
      name: METRIC.confirmedFailures, help: 'Confirmations that took a ready domain to attention_required, by the check confirmed.', labelNames: ['check'] as const, registers,
    }),
    acmeOrders: new Counter({ name: METRIC.acmeOrders, help: 'ACME orders finished, by result.', labelNames: ['result'] as const, registers }),
    acmeFailures: new Counter({ name: METRIC.acmeFailures, help: 'ACME orders that failed, by reason.', labelNames: ['reason'] as const, registers }),
    acmeBudgetRefusals: new Counter({ name: METRIC.acmeBudgetRefusals, help: 'ACME orders held back (not sent) by the hourly order budget, by the scope that had no slot left.', labelNames: ['scope'] as const, registers }),
    acmeDirectoryOrders: new Counter({ name: METRIC.acmeDirectoryOrders, help: 'ACME orders sent to each directory, by result.', labelNames: ['directory', 'result'] as const, registers }),
    acmeDirectoryFailures: new Counter({
      name: METRIC.acmeDirectoryFailures, help: "Failures at the CA's side that set a directory aside, by directory and reason.", labelNames: ['directory', 'reason'] as const, registers,
    }),
    acmeDirectorySetAside: new Gauge({
      name: METRIC.acmeDirectorySetAside, help: 'ACME directories set aside after a failure at the CA\'s side (1 while the pause lasts, else 0).', labelNames: ['directory'] as const, registers,
      collect() {
        for (const [directory, setAside] of directorySetAsideSource?.() ?? []) this.set({ directory }, setAside ? 1 : 0);
      },
    }),
    earliestCertificateExpiry,
  };
});

/**
 * Bus consumers (checker, webhook-dispatcher, edge caches), counted around the handler (see meteredHandler):
 * `outcome` ack (handled) | retry (the handler failed: the bus retries the message, or dead-letters it after its last retry);
 * lag = consume time minus the message's creation time, for messages that carry it.
 */
export const consumerMetrics = group((registers) => ({
  consumed: new Counter({ name: METRIC.consumed, help: 'Messages handled, by consumer and outcome.', labelNames: ['consumer', 'outcome'] as const, registers }),
  lag: new Histogram({ name: METRIC.consumerLag, help: 'Time from a message being written to its consumption.', labelNames: ['consumer'] as const, buckets: [...LAG_BUCKETS], registers }),
}));

/** webhook-dispatcher: `state` delivered|failed|abandoned (failed = an attempt that will be retried). */
export const dispatcherMetrics = group((registers) => ({
  deliveries: new Counter({ name: METRIC.deliveries, help: 'Delivery attempts, by the state they left the delivery in.', labelNames: ['state'] as const, registers }),
  duration: new Histogram({ name: METRIC.deliveryDuration, help: 'Time of one delivery attempt.', labelNames: ['state'] as const, buckets: [...LATENCY_BUCKETS], registers }),
}));

let coolingCollect: () => Promise<void> = () => Promise.resolve();

/** What the cooling gauge runs at scrape time (set by the dispatcher, which reads the database). */
export function setCoolingCollect(collect: () => Promise<void>): void {
  coolingCollect = collect;
}

/**
 * webhook-dispatcher fairness (DECISIONS §10). In-flight attempts per subscription would be a series per
 * tenant: the deployment's cooling subscriptions are one gauge instead, read from the database at scrape time.
 * Deferred: leased deliveries that waited while a dispatcher slot was free, `reason` in_flight_cap (their
 * subscription had its WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION attempts running), cooling (its one attempt) or
 * application_cap (its application's subscriptions together held half the dispatcher's slots).
 */
export const dispatcherFairnessMetrics = group((registers) => ({
  cooling: new Gauge({ name: METRIC.webhookCooling, help: 'Active webhook subscriptions that are cooling: their last 5 attempts failed, or 16 of their last 20; one attempt at a time.', registers, collect: () => coolingCollect() }),
  deferred: new Counter({ name: METRIC.webhookDeferred, help: 'Leased webhook deliveries that waited for their subscription\'s turn while a dispatcher slot was free, by reason.', labelNames: ['reason'] as const, registers }),
}));

/** edge-proxy: per application slug (bounded by the number of tenants), `status_class` 2xx..5xx; `cache` route|certificate|assertion. */
let edgeCollect: () => void = () => undefined;

/**
 * The edge counts per request in plain memory (prom-client's labelled updates
 * cost more than the rest of its bookkeeping) and moves the sums into these
 * metrics when they are scraped; `collect` is that move.
 */
export function setEdgeCollect(collect: () => void): void {
  edgeCollect = collect;
}

export const edgeMetrics = group((registers) => {
  const collect = () => edgeCollect();
  return {
    requests: new Counter({ name: METRIC.edgeRequests, help: 'Requests answered by the edge, by application and status class.', labelNames: ['application', 'status_class'] as const, registers, collect }),
    responseBytes: new Counter({ name: METRIC.edgeBytes, help: 'Response bytes sent to clients, by application.', labelNames: ['application'] as const, registers, collect }),
    duration: new SummedHistogram(METRIC.edgeDuration, 'Time to answer a proxied request.', 'status_class', LATENCY_BUCKETS, registers),
    cacheLookups: new Counter({ name: METRIC.cacheLookups, help: 'Cache lookups, by cache and result (hit|miss).', labelNames: ['cache', 'result'] as const, registers, collect }),
  };
});
