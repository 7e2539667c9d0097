// Split-mode entry point of the webhook dispatcher: wiring only.
import { closeServer, onShutdown, openSplitService, runMain } from '@cds/lifecycle';
import { enableProcessMetrics, processMetricsSource } from '@cds/metrics';
import { startDispatcher } from './dispatcher';

async function main(): Promise<void> {
  enableProcessMetrics();
  const { config, logger, store, bus, ops, reportReadiness } = await openSplitService('webhook-dispatcher', { metrics: processMetricsSource });
  const dispatcher = await startDispatcher({ config, logger, store, bus });

  let accepting = true;
  // Not ready without the broker: events come from it.
  reportReadiness({ ready: () => accepting && bus.healthy() });
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
