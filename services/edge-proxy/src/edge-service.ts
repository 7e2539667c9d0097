// The edge as a service: listeners, traffic counters, the fair-use watch and
// metrics, from the validated configuration. main.ts and the all-in-one start it.
// The change feed gets a read-only store of its own, one connection, so that
// its reads never wait behind the edge's other reads: a saturated pool must not
// stall it (LiveNames would stop answering and every random name would cost a
// read).
import { readFileSync } from 'node:fs';
import { databaseConnection, requiredSetting, type Config } from '@cds/config';
import { createDataStore, type DataStore } from '@cds/data';
import type { Logger } from '@cds/logging';
import type { Bus } from '@cds/messaging';
import { startEdge, type Edge } from './edge-server';
import { edgeMetricsObserver } from './observing/edge-metrics';
import { createFairUseWatch } from './usage/fair-use';
import { TrafficCounter } from './usage/traffic-counter';

/** The feed's connection gives up as the edge's own does (main.ts): it must not hang on a network that drops packets. */
const FEED_DATABASE = { poolSize: 1, readOnly: true, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000 };

export interface EdgeServiceDeps {
  config: Config;
  logger: Logger;
  store: DataStore;
  bus?: Bus;
}

export interface EdgeService {
  readonly edge: Edge;
  /** For /readyz: the edge stays ready while it serves from cache, and says so. */
  detail(): Record<string, unknown>;
  /** Refuses new connections, lets requests in flight finish, then flushes the counters. */
  stop(graceMs?: number): Promise<void>;
}

export async function startEdgeService(deps: EdgeServiceDeps): Promise<EdgeService> {
  const { config, logger, store } = deps;
  const fairUse = createFairUseWatch({ store, logger, smtpUrl: config.smtpUrl, smtpFrom: config.smtpFrom });
  const traffic = new TrafficCounter({ store, logger, afterFlush: (ids) => fairUse.check(ids) });
  traffic.start();
  const feedStore = await createDataStore({ ...databaseConnection(config), logger, ...FEED_DATABASE });
  const edge = await startEdge({
    store,
    feedStore,
    cacheMaxAgeMs: config.edgeCacheMaxAge,
    logger,
    bus: deps.bus,
    acmeDnsZone: config.acmeDnsZone,
    traffic,
    observer: edgeMetricsObserver(),
    httpsPort: config.edgeHttpsPort,
    publicHttpsPort: config.edgePublicHttpsPort,
    httpPort: config.edgeHttpPort,
    bindAddress: config.bindAddress,
    dataEncryptionKey: config.dataEncryptionKeys,
    deploymentKey: { kid: config.assertionDeploymentKid, secret: requiredSetting(config, 'assertionDeploymentKey') },
    originTimeoutMs: config.originTimeout,
    originCa: config.originCaBundle ? readFileSync(config.originCaBundle, 'utf8') : null,
    maxConnections: config.edgeMaxConnections,
    maxConnectionsPerClient: config.edgeMaxConnectionsPerClient,
    requestTimeoutMs: config.edgeRequestTimeout,
    websocketIdleTimeoutMs: config.edgeWebsocketIdleTimeout,
    proxyProtocol: config.edgeProxyProtocol ? { trustedCidrs: config.edgeProxyProtocolCidrs } : null,
  });
  return {
    edge,
    detail: () => {
      // The ops body is JSON like the API's: snake_case.
      const { reachable, since, lastError, failures } = edge.controlPlane();
      return { control_plane: { reachable, since, last_error: lastError, failures } };
    },
    async stop(graceMs) {
      await edge.close(graceMs);
      await feedStore.close();
      await traffic.stop();
      await fairUse.close();
    },
  };
}
