// Split-mode entry point of the checker: wiring only.
import { outboxSource } from '@cds/data';
import { closeServer, onShutdown, openSplitService, runMain } from '@cds/lifecycle';
import { enableProcessMetrics, meteredSetAside, processMetricsSource } from '@cds/metrics';
import { startOutboxRelay } from '@cds/messaging';
import { startChecker } from './checker';

async function main(): Promise<void> {
  enableProcessMetrics();
  const { config, logger, store, bus, ops, reportReadiness } = await openSplitService('checker', { metrics: processMetricsSource });
  const relay = startOutboxRelay({ source: outboxSource(store), bus, logger, onSetAside: meteredSetAside() });
  const checker = await startChecker({ config, logger, store, bus, afterCommit: () => relay.kick() });

  let accepting = true;
  // Not ready without the broker: check requests come from it.
  reportReadiness({ ready: () => accepting && bus.healthy() });
  logger.info('checker started', { checker_id: checker.checkerId, metrics: config.metricsPort, database: store.kind });

  onShutdown(
    [
      ['readiness off', () => { accepting = false; }],
      ['stop consuming and drain checks', () => checker.stop()],
      ['stop relay', () => relay.stop()],
      ['close bus', () => bus.close()],
      ['close database', () => store.close()],
      ['close ops listener', () => closeServer(ops)],
    ],
    logger,
  );
}

runMain('checker', main);
