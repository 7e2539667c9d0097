// Split-mode entry point of the edge proxy: wiring only.
import { loadConfigOrExit } from '@cds/config';
import { createDataStore } from '@cds/data';
import { closeServer, listen, onShutdown, opsHandler } from '@cds/http';
import { createLogger } from '@cds/logging';
import { enableProcessMetrics, processMetricsSource } from '@cds/metrics';
import { connectAmqpBus } from '@cds/messaging';
import { startEdgeService } from './edge-service';

/** In-flight requests get this long after SIGTERM; the chart's grace period is longer. */
const DRAIN_MS = 20_000;

async function main(): Promise<void> {
  const config = loadConfigOrExit({ mode: 'split' });
  const logger = createLogger({ service: 'edge-proxy', level: config.logLevel });
  const store = await createDataStore({ url: config.databaseUrl, logger });
  const pending = await store.pendingMigrations();
  if (pending.length > 0) throw new Error(`the database schema is not current (pending: ${pending.join(', ')}); run \`cdctl migrate\``);
  if (!config.amqpUrl) throw new Error('AMQP_URL is required in split mode');
  const bus = await connectAmqpBus({ url: config.amqpUrl, logger, connectionName: 'edge-proxy' });

  enableProcessMetrics();
  const service = await startEdgeService({ config, logger, store, bus });
  let accepting = true;
  // Ready while it can serve: a database or broker outage only makes it serve from cache (see the detail).
  const ops = await listen(opsHandler({ ready: () => accepting, detail: () => service.detail() }, processMetricsSource), config.metricsPort, config.bindAddress);
  logger.info('edge-proxy started', { https: service.edge.httpsPort, http: service.edge.httpPort, metrics: config.metricsPort });

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

main().catch((err: unknown) => {
  console.error(`edge-proxy failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
