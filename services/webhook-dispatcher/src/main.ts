// Split-mode entry point of the webhook dispatcher: wiring only.
import { loadConfigOrExit } from '@cds/config';
import { createDataStore } from '@cds/data';
import { closeServer, listen, onShutdown, opsHandler } from '@cds/http';
import { createLogger } from '@cds/logging';
import { enableProcessMetrics, processMetricsSource } from '@cds/metrics';
import { connectAmqpBus } from '@cds/messaging';
import { startDispatcher } from './dispatcher';

async function main(): Promise<void> {
  const config = loadConfigOrExit({ mode: 'split' });
  const logger = createLogger({ service: 'webhook-dispatcher', level: config.logLevel });
  const store = await createDataStore({ url: config.databaseUrl, logger });
  const pending = await store.pendingMigrations();
  if (pending.length > 0) throw new Error(`the database schema is not current (pending: ${pending.join(', ')}); run \`cdctl migrate\``);
  if (!config.amqpUrl) throw new Error('AMQP_URL is required in split mode');
  const bus = await connectAmqpBus({ url: config.amqpUrl, logger, connectionName: 'webhook-dispatcher' });
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

main().catch((err: unknown) => {
  console.error(`webhook-dispatcher failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
