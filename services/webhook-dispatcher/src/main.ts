// Split-mode entry point of the webhook dispatcher: wiring only.
import { closeServer, listen, onShutdown, openSplitService, opsHandler, runMain } from '@cds/lifecycle';
import { enableProcessMetrics, processMetricsSource } from '@cds/metrics';
import { startDispatcher } from './dispatcher';

async function main(): Promise<void> {
  const { config, logger, store, bus } = await openSplitService('webhook-dispatcher');
  const dispatcher = await startDispatcher({ config, logger, store, bus });

  enableProcessMetrics();
  let accepting = true;
  const ops = await listen(opsHandler({ ready: () => accepting && bus.healthy() }, processMetricsSource), config.metricsPort, config.bindAddress);
  logger.info('webhook dispatcher started', { metrics: config.metricsPort, database: store.kind });

  onShutdown(
    [
      ['readiness off', () => { accepting = false; }],
      ['stop consuming and drain attempts', () => dispatcher.stop()],
      ['close bus', () => bus.close()],
      ['close database', () => store.close()],
      ['close ops listener', () => closeServer(ops)],
    ],
    logger,
  );
}

runMain('webhook-dispatcher', main);
