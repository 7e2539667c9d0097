// Split-mode entry point of the API: wiring only.
import { outboxSource } from '@cds/data';
import { closeServer, listen, onShutdown, openSplitService, opsHandler, runMain } from '@cds/http';
import { enableProcessMetrics, processMetricsSource, watchDatabase } from '@cds/metrics';
import { startOutboxRelay } from '@cds/messaging';
import { createApp } from './app';

/**
 * Every request sends one or two short statements, and many of them touch the
 * same rows (a credential's budget, an application's live-domain count): four
 * connections carry all one process can send, and more would only queue them
 * inside PostgreSQL, where waiting for a row lock costs CPU (docs/benchmarks.md).
 */
const POOL_SIZE = 4;

async function main(): Promise<void> {
  const { config, logger, store, bus } = await openSplitService('api', { poolSize: POOL_SIZE });
  const relay = startOutboxRelay({ source: outboxSource(store), bus, logger });

  enableProcessMetrics();
  watchDatabase(store);
  let accepting = true;
  const server = await listen(createApp({ config, logger, store, afterCommit: () => relay.kick() }), config.apiPort, config.bindAddress);
  const ops = await listen(opsHandler({ ready: () => accepting && bus.healthy() }, processMetricsSource), config.metricsPort, config.bindAddress);
  logger.info('api listening', { address: `http://${config.bindAddress}:${config.apiPort}`, metrics: config.metricsPort });

  onShutdown(
    [
      ['readiness off', () => { accepting = false; }],
      ['stop accepting and drain', () => closeServer(server)],
      ['stop relay', () => relay.stop()],
      ['close bus', () => bus.close()],
      ['close database', () => store.close()],
      ['close ops listener', () => closeServer(ops)],
    ],
    logger,
  );
}

runMain('api', main);
