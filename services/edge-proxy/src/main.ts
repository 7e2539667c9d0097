// Split-mode entry point of the edge proxy: wiring only.
import { proxyProtocolPeersWarning } from '@cds/config';
import { closeServer, onShutdown, openSplitService, runMain } from '@cds/lifecycle';
import { enableProcessMetrics, processMetricsSource } from '@cds/metrics';
import { startEdgeService } from './edge-service';

/** In-flight requests get this long after SIGTERM; the chart's grace period is longer. */
const DRAIN_MS = 20_000;
/**
 * The edge serves from its caches while the database is away; a request that
 * needs the database (a name it never saw, a limiter reservation) waits at
 * most this long for it, however the network fails.
 */
const DATABASE_TIMEOUTS = { connectTimeoutMs: 2_000, queryTimeoutMs: 5_000 };

async function main(): Promise<void> {
  enableProcessMetrics();
  const { config, logger, store, bus, ops, reportReadiness } = await openSplitService('edge-proxy', { ...DATABASE_TIMEOUTS, metrics: processMetricsSource });
  const service = await startEdgeService({ config, logger, store, bus });
  let accepting = true;
  // Ready while it can serve: a database or broker outage only makes it serve from cache (see the detail).
  reportReadiness({ ready: () => accepting, detail: () => service.detail() });
  logger.info('edge-proxy started', { https: service.edge.httpsPort, http: service.edge.httpPort, metrics: config.metricsPort });
  const peers = proxyProtocolPeersWarning(config);
  if (peers) logger.warn(peers);

  onShutdown(
    [
      ['readiness off', () => { accepting = false; }],
      ['stop accepting, drain requests, flush counters', () => service.stop(DRAIN_MS)],
      ['close bus', () => bus.close()],
      ['close database', () => store.close()],
      ['close ops listener', () => closeServer(ops)],
    ],
    logger,
  );
}

runMain('edge-proxy', main);
