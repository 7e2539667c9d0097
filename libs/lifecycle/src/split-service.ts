// What every split-mode entry point does first: configuration, logger,
// database (refusing a schema that is not current) and the RabbitMQ bus.
import { loadConfigOrExit, logColourAllowed, type Config } from '@cds/config';
import { createDataStore, type DataStore, type DataStoreOptions } from '@cds/data';
import { createLogger } from '@cds/logging';
import { connectAmqpBus, type AmqpBus } from '@cds/messaging';

export interface SplitService {
  config: Config;
  /** The winston logger itself: the API's access log writes at its `http` level. */
  logger: ReturnType<typeof createLogger>;
  store: DataStore;
  bus: AmqpBus;
}

export async function openSplitService(service: string, opts: Pick<DataStoreOptions, 'poolSize' | 'connectTimeoutMs' | 'queryTimeoutMs'> = {}): Promise<SplitService> {
  const config = loadConfigOrExit({ mode: 'split' });
  const logger = createLogger({ service, level: config.logLevel, format: config.logFormat, colour: logColourAllowed() });
  const store = await createDataStore({ url: config.databaseUrl, logger, ...opts });
  const pending = await store.pendingMigrations();
  if (pending.length > 0) throw new Error(`the database schema is not current (pending: ${pending.join(', ')}); run \`cdctl migrate\``);
  if (!config.amqpUrl) throw new Error('AMQP_URL is required in split mode');
  const bus = await connectAmqpBus({ url: config.amqpUrl, logger, connectionName: service });
  return { config, logger, store, bus };
}
