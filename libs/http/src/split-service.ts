// What every split-mode entry point does first: configuration, logger,
// database (refusing a schema that is not current) and the RabbitMQ bus; and
// how a start-up failure ends the process (one line, exit 1).
import { errorMessage } from '@cds/core';
import { loadConfigOrExit, type Config } from '@cds/config';
import { createDataStore, type DataStore, type DataStoreOptions } from '@cds/data';
import { createLogger, type Logger } from '@cds/logging';
import { connectAmqpBus, type AmqpBus } from '@cds/messaging';

export interface SplitService {
  config: Config;
  logger: Logger;
  store: DataStore;
  bus: AmqpBus;
}

export async function openSplitService(service: string, opts: Pick<DataStoreOptions, 'poolSize' | 'connectTimeoutMs' | 'queryTimeoutMs'> = {}): Promise<SplitService> {
  const config = loadConfigOrExit({ mode: 'split' });
  const logger = createLogger({ service, level: config.logLevel });
  const store = await createDataStore({ url: config.databaseUrl, logger, ...opts });
  const pending = await store.pendingMigrations();
  if (pending.length > 0) throw new Error(`the database schema is not current (pending: ${pending.join(', ')}); run \`cdctl migrate\``);
  if (!config.amqpUrl) throw new Error('AMQP_URL is required in split mode');
  const bus = await connectAmqpBus({ url: config.amqpUrl, logger, connectionName: service });
  return { config, logger, store, bus };
}

/** Runs an entry point; a start-up failure prints one line naming the service and exits 1. */
export function runMain(service: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(`${service} failed to start: ${errorMessage(err)}`);
    process.exit(1);
  });
}
