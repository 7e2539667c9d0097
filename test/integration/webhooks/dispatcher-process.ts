// Split-mode webhook dispatcher processes for tests: `node
// services/webhook-dispatcher/dist/main.js` with the environment a test gives,
// ready once its /readyz answers 200; stopped with SIGTERM or SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { outboxSource, type DataStore } from '@cds/data';
import { connectAmqpBus, startOutboxRelay, type OutboxRelay } from '@cds/messaging';
import { eventually } from '../../support/eventually';
import { freePort } from '../../support/free-port';
import { stopProcess, waitForBuild, type Exit } from '../../support/service-process';
import { createVhost, deleteVhost, type TestVhost } from '../messaging/rabbit';

export const DISPATCHER_MAIN = join(__dirname, '../../../services/webhook-dispatcher/dist/main.js');

export interface DispatcherProcess {
  child: ChildProcess;
  output: () => string;
}

/** Waits for the build of the service this file starts (see waitForBuild). */
export const waitForDispatcherBuild = (): Promise<void> => waitForBuild(DISPATCHER_MAIN);

/** The split-mode environment over a database and a broker; `dataEncryptionKey` must be the API's, so the secrets it sealed open. */
export function dispatcherEnv(databaseUrl: string, amqpUrl: string, dataEncryptionKey: Buffer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    AMQP_URL: amqpUrl,
    OPERATOR_TOKEN: randomBytes(24).toString('base64url'),
    DATA_ENCRYPTION_KEY: dataEncryptionKey.toString('base64'),
    ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** A RabbitMQ vhost of the test's own and the outbox relay that publishes the API's outbox to it, as split mode runs. */
export interface BrokerRelay {
  vhost: TestVhost;
  relay: OutboxRelay;
  close(): Promise<void>;
}

export async function startBrokerRelay(store: DataStore): Promise<BrokerRelay> {
  const vhost = await createVhost();
  const bus = await connectAmqpBus({ url: vhost.url, reconnectDelayMs: { initial: 100, max: 500 } });
  const relay = startOutboxRelay({ source: outboxSource(store), bus, intervalMs: 50 });
  return {
    vhost, relay,
    async close() {
      await relay.stop();
      await bus.close();
      await deleteVhost(vhost);
    },
  };
}

export async function startDispatcherProcess(env: Record<string, string>): Promise<DispatcherProcess> {
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [DISPATCHER_MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env, METRICS_PORT: String(metricsPort), BIND_ADDRESS: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  await eventually('the dispatcher to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`dispatcher exited with ${child.exitCode}:\n${output}`);
    try {
      return (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status === 200;
    } catch {
      return false;
    }
  }, { timeoutMs: 30_000 });
  return { child, output: () => output };
}

export async function kill9(proc: DispatcherProcess): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.child.once('exit', () => resolve()));
  proc.child.kill('SIGKILL');
  await exited;
}

/** SIGTERM, then SIGKILL if it has not exited within 15 s. */
export const stop = (proc: DispatcherProcess): Promise<Exit> => stopProcess(proc.child, 15_000);
