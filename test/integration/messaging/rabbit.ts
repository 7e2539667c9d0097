// Test helpers for a real RabbitMQ: each test file gets its own throwaway
// vhost, so closing "all connections" breaks this file's connections only,
// never those of other test runs sharing the broker.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import amqp, { type Channel } from 'amqplib';
import type { Logger } from '@cds/logging';
import { serviceQueues } from '@cds/messaging';

const run = promisify(execFile);
const BROKER = 'amqp://guest:guest@127.0.0.1:5672';

export const uniqueName = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;

async function rabbitmqctl(...args: string[]): Promise<string> {
  const { stdout } = await run('rabbitmqctl', args, { timeout: 30_000 });
  return stdout;
}

export interface TestVhost {
  name: string;
  url: string;
}

export async function createVhost(): Promise<TestVhost> {
  const name = uniqueName('cds-messaging-test');
  await rabbitmqctl('add_vhost', name);
  await rabbitmqctl('set_permissions', '-p', name, 'guest', '.*', '.*', '.*');
  return { name, url: `${BROKER}/${encodeURIComponent(name)}` };
}

export async function deleteVhost(vhost: TestVhost): Promise<void> {
  await rabbitmqctl('delete_vhost', vhost.name);
}

/** `rabbitmqctl close_all_connections "test"`, limited to the test's vhost. */
export async function closeAllConnections(vhost: TestVhost): Promise<void> {
  await rabbitmqctl('close_all_connections', '-p', vhost.name, 'test');
}

/** A short-lived plain connection for inspecting and cleaning up. */
export async function withChannel<T>(vhost: TestVhost, fn: (ch: Channel) => Promise<T>): Promise<T> {
  const conn = await amqp.connect(vhost.url);
  try {
    const ch = await conn.createChannel();
    ch.on('error', () => undefined); // the failing call rejects too
    return await fn(ch);
  } finally {
    await conn.close().catch(() => undefined);
  }
}

/** Publishes bytes as they are, bypassing the bus and its catalog; waits for the confirms. */
export async function publishRaw(
  vhost: TestVhost, exchange: string, messages: { routingKey: string; body: string; messageId?: string; headers?: Record<string, unknown> }[],
): Promise<void> {
  const conn = await amqp.connect(vhost.url);
  try {
    const ch = await conn.createConfirmChannel();
    for (const m of messages) ch.publish(exchange, m.routingKey, Buffer.from(m.body), { messageId: m.messageId, headers: m.headers });
    await ch.waitForConfirms();
  } finally {
    await conn.close().catch(() => undefined);
  }
}

export async function messageCount(vhost: TestVhost, queue: string): Promise<number> {
  return withChannel(vhost, async (ch) => (await ch.checkQueue(queue)).messageCount);
}

/** Deletes a subscription's queues and a test exchange with its dead-letter exchange. */
/** Deletes a test's exchange and queues, and the services' queues every bus declares. */
export async function removeTopology(vhost: TestVhost, exchange: string, queues: string[]): Promise<void> {
  await withChannel(vhost, async (ch) => {
    for (const queue of [...queues, ...serviceQueues().map((q) => q.queue)]) for (const name of [queue, `${queue}.retry`, `${queue}.dead`]) await ch.deleteQueue(name);
    await ch.deleteExchange(exchange);
    await ch.deleteExchange(`${exchange}.dead-letter`);
  });
}

/** Keeps log lines so tests can see what the bus reported. */
export function memoryLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    debug: (message) => void lines.push({ level: 'debug', message }),
    info: (message) => void lines.push({ level: 'info', message }),
    warn: (message) => void lines.push({ level: 'warn', message }),
    error: (message) => void lines.push({ level: 'error', message }),
  };
}
