// Split-mode entry point of the API: wiring only.
import { outboxSource } from '@cds/data';
import { closeServer, listen, onShutdown, openSplitService, opsHandler, runMain } from '@cds/http';
import { enableProcessMetrics, processMetricsSource, watchDatabase } from '@cds/metrics';
import { startOutboxRelay } from '@cds/messaging';
import { createApp } from './app';

async function main(): Promise<void> {
  const { config, logger, store, bus } = await openSplitService('api');
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
