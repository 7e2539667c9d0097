// What every split-mode entry point does first: configuration, logger, the ops
// listener (alive at once, not ready until the service says so), then the
// database, waited for as long as it takes to answer with a current schema,
// and the RabbitMQ bus, which connects in the background: the API works
// without the broker (its outbox keeps every message), the edge serves from
// the database, and the checker and the dispatcher report themselves not
// ready until it connects.
import type http from 'node:http';
import { brokerConnection, databaseConnection, loadConfigOrExit, logColourAllowed, type Config, type SplitServiceName } from '@cds/config';
import { createDataStore, type DataStore, type DataStoreOptions } from '@cds/data';
import { createLogger } from '@cds/logging';
import { AmqpBus } from '@cds/messaging';
import { listen } from './http-server';
import { keepStarting } from './keep-starting';
import { opsHandler, type HealthState, type OpsMetricsSource } from './ops-handler';

export interface SplitServiceOptions extends Pick<DataStoreOptions, 'connectTimeoutMs' | 'queryTimeoutMs'> {
  /** The pool size when DATABASE_POOL_SIZE is unset (the data library's own default without it). */
  defaultPoolSize?: number;
  /** Served on /metrics from the start. */
  metrics?: OpsMetricsSource;
}

export interface SplitService {
  config: Config;
  /** The winston logger itself: the API's access log writes at its `http` level. */
  logger: ReturnType<typeof createLogger>;
  store: DataStore;
  bus: AmqpBus;
  /** The ops listener on METRICS_PORT, up since the start; closed last at shutdown. */
  ops: http.Server;
  /** Until this is called /readyz answers 503; from then on it follows `health`. */
  reportReadiness(health: HealthState): void;
}

/** The database store once it answers and its schema is current; closed again otherwise. */
async function openCurrentStore(opts: DataStoreOptions): Promise<DataStore> {
  const store = await createDataStore(opts);
  try {
    const pending = await store.pendingMigrations();
    if (pending.length > 0) throw new Error(`the database schema is not current (pending: ${pending.join(', ')}); run \`cdctl migrate\``);
    return store;
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

export async function openSplitService(service: SplitServiceName, opts: SplitServiceOptions = {}): Promise<SplitService> {
  const config = loadConfigOrExit({ mode: 'split', service });
  const logger = createLogger({ service, level: config.logLevel, format: config.logFormat, colour: logColourAllowed() });
  let health: HealthState = { ready: () => false };
  const ops = await listen(opsHandler({ ready: () => health.ready(), detail: () => health.detail?.() }, opts.metrics), config.metricsPort, config.bindAddress);

  const { defaultPoolSize, metrics: _metrics, ...timeouts } = opts;
  const poolSize = config.databasePoolSize ?? defaultPoolSize;
  const storeOptions: DataStoreOptions = { ...databaseConnection(config), logger, ...timeouts, ...(poolSize === undefined ? {} : { poolSize }) };
  const store = await keepStarting('the database', () => openCurrentStore(storeOptions), { logger });

  const broker = brokerConnection(config);
  if (!broker) throw new Error('AMQP_URL is required in split mode');
  const bus = new AmqpBus({ ...broker, logger, connectionName: service });
  bus.connectInBackground();
  return { config, logger, store, bus, ops, reportReadiness: (next) => { health = next; } };
}
