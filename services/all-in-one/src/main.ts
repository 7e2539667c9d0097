// All-in-one entry point: every service in one process over SQLite and the
// in-process bus (or PostgreSQL/RabbitMQ when DATABASE_URL/AMQP_URL say so).
import path from 'node:path';
import { brokerConnection, databaseConnection, loadAllInOneConfig, logColourAllowed, operatorExposureWarning, proxyProtocolPeersWarning } from '@cds/config';
import { createDataStore, outboxSource } from '@cds/data';
import { boundPort, closeServer, listen, onShutdown, opsHandler, runMain, startHousekeeping } from '@cds/lifecycle';
import { createLogger, ignoreClosedReader, writesPrettyLines } from '@cds/logging';
import { enableProcessMetrics, meteredHousekeeping, meteredSetAside, processMetricsSource, watchDatabase } from '@cds/metrics';
import { connectAmqpBus, InProcessBus, startOutboxRelay, type Bus } from '@cds/messaging';
import { createApp, createOperatorApp } from '@cds/api';
import { startDispatcher } from '@cds/webhook-dispatcher';
import { startChecker } from '@cds/checker';
import { startEdgeService } from '@cds/edge-proxy';
import { startBanner } from './banner';

const DATA_DIR = path.resolve('data');

async function main(): Promise<void> {
  const { config, operatorTokenFile } = loadAllInOneConfig(DATA_DIR);
  const logger = createLogger({ service: 'all-in-one', level: config.logLevel, format: config.logFormat, colour: logColourAllowed() });
  const store = await createDataStore({ ...databaseConnection(config), logger, ...(config.databasePoolSize === null ? {} : { poolSize: config.databasePoolSize }) });
  const applied = await store.migrate();
  if (applied.length > 0) logger.info('database migrated', { applied });
  const broker = brokerConnection(config);
  const bus: Bus = broker ? await connectAmqpBus({ ...broker, logger, connectionName: 'all-in-one' }) : new InProcessBus({ logger });
  const relay = startOutboxRelay({ source: outboxSource(store), bus, logger, onSetAside: meteredSetAside() });
  const housekeeping = startHousekeeping({ store, settings: config, logger, onRun: meteredHousekeeping(config.housekeepingInterval) });
  const dispatcher = await startDispatcher({ config, logger, store, bus });
  const checker = await startChecker({ config, logger, store, bus, afterCommit: () => relay.kick() });

  enableProcessMetrics();
  watchDatabase(store);
  let accepting = true;
  const apiDeps = { config, logger, store, afterCommit: () => relay.kick() };
  const api = await listen(createApp(apiDeps), config.apiPort, config.bindAddress);
  const operatorListeners = config.operatorPort === null ? [] : [await listen(createOperatorApp(apiDeps), config.operatorPort, config.bindAddress)];
  const edge = await startEdgeService({ config, logger, store, bus });
  const ops = await listen(opsHandler({ ready: () => accepting && bus.healthy(), detail: () => edge.detail() }, processMetricsSource), config.metricsPort, config.bindAddress);

  const ports = {
    api: boundPort(api), operator: operatorListeners[0] ? boundPort(operatorListeners[0]) : null,
    edgeHttps: edge.edge.httpsPort, edgeHttp: edge.edge.httpPort, metrics: boundPort(ops),
  };
  logger.info('all-in-one started', { api: `http://${config.bindAddress}:${ports.api}`, edge_https: ports.edgeHttps, edge_http: ports.edgeHttp, metrics: ports.metrics, database: store.kind });
  for (const warning of [operatorExposureWarning(config), proxyProtocolPeersWarning(config)]) if (warning) logger.warn(warning);
  // For the person who ran it: beside readable logs on stdout; on stderr when stdout carries JSON lines for a machine.
  const bannerStream = writesPrettyLines(config.logFormat) ? process.stdout : process.stderr;
  ignoreClosedReader(bannerStream);
  bannerStream.write(startBanner({ config, ports, operatorTokenFile, cwd: process.cwd() }));

  onShutdown(
    [
      ['readiness off', () => { accepting = false; }],
      ['stop accepting and drain', async () => { await Promise.all([api, ...operatorListeners].map(closeServer)); }],
      ['stop edge: drain requests, flush counters', () => edge.stop(20_000)],
      ['stop checker', () => checker.stop()],
      ['stop relay', () => relay.stop()],
      ['stop housekeeping', () => housekeeping.stop()],
      ['stop webhook dispatcher', () => dispatcher.stop()],
      ['close bus', () => bus.close()],
      ['close database', () => store.close()],
      ['close ops listener', () => closeServer(ops)],
    ],
    logger,
  );
}

runMain('all-in-one', main);
