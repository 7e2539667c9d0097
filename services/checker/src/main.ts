// Split-mode entry point of the checker: wiring only.
import { outboxSource } from '@cds/data';
import { closeServer, listen, onShutdown, openSplitService, opsHandler, runMain } from '@cds/lifecycle';
import { enableProcessMetrics, meteredSetAside, processMetricsSource } from '@cds/metrics';
import { startOutboxRelay } from '@cds/messaging';
import { startChecker } from './checker';

async function main(): Promise<void> {
  const { config, logger, store, bus } = await openSplitService('checker');
  const relay = startOutboxRelay({ source: outboxSource(store), bus, logger, onSetAside: meteredSetAside() });
  const checker = await startChecker({ config, logger, store, bus, afterCommit: () => relay.kick() });

  enableProcessMetrics();
  let accepting = true;
  const ops = await listen(opsHandler({ ready: () => accepting && bus.healthy() }, processMetricsSource), config.metricsPort, config.bindAddress);
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
