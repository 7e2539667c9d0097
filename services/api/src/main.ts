// Split-mode entry point of the API: wiring only.
import { operatorExposureWarning } from '@cds/config';
import { outboxSource } from '@cds/data';
import { closeServer, listen, onShutdown, openSplitService, runMain, startHousekeeping } from '@cds/lifecycle';
import { enableProcessMetrics, meteredHousekeeping, meteredSetAside, processMetricsSource, watchDatabase } from '@cds/metrics';
import { startOutboxRelay } from '@cds/messaging';
import { createApp, createOperatorApp } from './app';

/**
 * Every request sends one or two short statements, and many of them touch the
 * same rows (a credential's budget, an application's live-domain count): four
 * connections carry all one process can send, and more would only queue them
 * inside PostgreSQL, where waiting for a row lock costs CPU (docs/benchmarks.md).
 * DATABASE_POOL_SIZE replaces it.
 */
const POOL_SIZE = 4;

async function main(): Promise<void> {
  enableProcessMetrics();
  const { config, logger, store, bus, ops, reportReadiness } = await openSplitService('api', { defaultPoolSize: POOL_SIZE, metrics: processMetricsSource });
  const relay = startOutboxRelay({ source: outboxSource(store), bus, logger, onSetAside: meteredSetAside() });
  const housekeeping = startHousekeeping({ store, settings: config, logger, onRun: meteredHousekeeping(config.housekeepingInterval) });

  watchDatabase(store);
  let accepting = true;
  const deps = { config, logger, store, afterCommit: () => relay.kick() };
  const server = await listen(createApp(deps), config.apiPort, config.bindAddress);
  // OPERATOR_PORT: the operator API on a port of its own, which a deployment keeps internal.
  const operatorListeners = config.operatorPort === null ? [] : [await listen(createOperatorApp(deps), config.operatorPort, config.bindAddress)];
  // Ready whatever the broker's state: the outbox keeps every message until the relay can publish it.
  reportReadiness({ ready: () => accepting });
  logger.info('api listening', { address: `http://${config.bindAddress}:${config.apiPort}`, operator: config.operatorPort ?? config.apiPort, metrics: config.metricsPort });
  const exposure = operatorExposureWarning(config);
  if (exposure) logger.warn(exposure);

  onShutdown(
    [
      ['readiness off', () => { accepting = false; }],
      ['stop accepting and drain', async () => { await Promise.all([server, ...operatorListeners].map(closeServer)); }],
      ['stop relay', () => relay.stop()],
      ['stop housekeeping', () => housekeeping.stop()],
      ['close bus', () => bus.close()],
      ['close database', () => store.close()],
      ['close ops listener', () => closeServer(ops)],
    ],
    logger,
  );
}

runMain('api', main);
