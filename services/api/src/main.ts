// Split-mode entry point of the API: wiring only.
import { loadConfigOrExit } from '@cds/config';
import { createDataStore, outboxSource } from '@cds/data';
import { closeServer, listen, onShutdown, opsHandler } from '@cds/http';
import { createLogger } from '@cds/logging';
import { enableProcessMetrics, processMetricsSource, watchDatabase } from '@cds/metrics';
import { connectAmqpBus, startOutboxRelay } from '@cds/messaging';
import { createApp } from './app';

async function main(): Promise<void> {
  const config = loadConfigOrExit({ mode: 'split' });
  const logger = createLogger({ service: 'api', level: config.logLevel });
  const store = await createDataStore({ url: config.databaseUrl, logger });
  const pending = await store.pendingMigrations();
  if (pending.length > 0) throw new Error(`the database schema is not current (pending: ${pending.join(', ')}); run \`cdctl migrate\``);
  if (!config.amqpUrl) throw new Error('AMQP_URL is required in split mode');
  const bus = await connectAmqpBus({ url: config.amqpUrl, logger, connectionName: 'api' });
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

main().catch((err: unknown) => {
  console.error(`api failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
