// The broker and the queue of every consuming service, over one short-lived
// connection shared by these checks.
import amqp, { type ChannelModel } from 'amqplib';
import { errorMessage } from '@cds/core';
import { serviceQueues } from '@cds/messaging';
import { FINDING_STATUSES, type Check, type Finding } from '../check';
import { CHECK_NAMES, queueCheckName } from '../check-names';
import { queueFinding } from '../findings';

const TIMEOUT_MS = 5000;
const AMQP_NOT_FOUND = 404;

export interface BrokerChecks {
  checks: Check[];
  /** Closes the connection, at once if it is open, or as soon as a late one opens. */
  close(): Promise<void>;
}

/** `amqpUrl` null: the deployment runs the in-process bus, which has no broker to ask. `ca`: AMQP_CA_BUNDLE's certificates. */
export function brokerChecks(amqpUrl: string | null, ca?: string): BrokerChecks {
  const queues = serviceQueues().map((q) => q.queue);
  if (!amqpUrl) {
    const inProcess = (message: string): Finding => ({ status: FINDING_STATUSES.ok, message });
    return {
      checks: [
        { name: CHECK_NAMES.broker, timeoutMs: TIMEOUT_MS, run: async () => inProcess('AMQP_URL is unset: the in-process bus is used, no broker is needed') },
        ...queues.map((queue) => ({
          name: queueCheckName(queue),
          timeoutMs: TIMEOUT_MS,
          run: async () => inProcess('in-process bus: messages are handed over in memory'),
        })),
      ],
      close: async () => undefined,
    };
  }

  let connection: Promise<ChannelModel> | null = null;
  let opened: ChannelModel | null = null;
  const connect = (): Promise<ChannelModel> => {
    connection ??= amqp.connect(amqpUrl, { timeout: TIMEOUT_MS, ...(ca === undefined ? {} : { ca: [ca] }) }).then((conn) => {
      conn.on('error', () => undefined); // a failed call rejects on its own
      opened = conn;
      return conn;
    });
    return connection;
  };

  return {
    checks: [
      {
        name: CHECK_NAMES.broker,
        timeoutMs: TIMEOUT_MS,
        run: async () => {
          const conn = await connect();
          const { product, version } = conn.connection.serverProperties;
          return { status: FINDING_STATUSES.ok, message: `connected to ${displayUrl(amqpUrl)} (${product} ${version})` };
        },
      },
      ...queues.map((queue) => ({ name: queueCheckName(queue), timeoutMs: TIMEOUT_MS, run: () => inspectQueue(connect, queue) })),
    ],
    close: async () => {
      if (opened) {
        await opened.close().catch(() => undefined);
        return;
      }
      // Still opening after its check gave up: closed when it opens, without keeping the report waiting.
      connection?.then((conn) => conn.close()).catch(() => undefined);
    },
  };
}

async function inspectQueue(connect: () => Promise<ChannelModel>, queue: string): Promise<Finding> {
  let conn: ChannelModel;
  try {
    conn = await connect();
  } catch (error) {
    return { status: FINDING_STATUSES.fail, message: `broker unreachable: ${errorMessage(error)}` };
  }
  const channel = await conn.createChannel();
  channel.on('error', () => undefined); // checkQueue of a missing queue closes the channel and rejects
  try {
    return queueFinding(queue, await channel.checkQueue(queue));
  } catch (error) {
    if ((error as { code?: unknown }).code !== AMQP_NOT_FOUND) throw error;
    return { status: FINDING_STATUSES.warn, message: `queue ${queue} does not exist yet: no bus of this deployment has connected` };
  } finally {
    await channel.close().catch(() => undefined);
  }
}

/** The broker's address without its credentials. */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}
