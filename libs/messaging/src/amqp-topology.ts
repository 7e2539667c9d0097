// RabbitMQ objects behind one subscription, and the headers the bus owns.
//
//   <exchange> (topic) --routing keys--> <queue>
//   <queue> --handler throws--> (republished by the consumer) <queue>.retry
//   <queue>.retry --message TTL expires--> default exchange --> <queue>
//   <queue> --nack: retries spent, or invalid--> <exchange>.dead-letter --> <queue>.dead
import type { Channel } from 'amqplib';
import { deadLetterQueueName } from './bus';

export const DEFAULT_EXCHANGE = 'custom-domains';

export const BUS_HEADERS = {
  /** Retries already made; the handler has run this many times plus one. */
  retryCount: 'x-retry-count',
  /** The publish routing key; a retried message comes back keyed by its queue name. */
  routingKey: 'x-original-routing-key',
  /** The catalog version of the payload; a consumer dead-letters another version (no header: version 1). */
  schemaVersion: 'x-schema-version',
  /** Milliseconds since the epoch when the message was written (the AMQP timestamp has whole seconds only). */
  writtenAt: 'x-written-at',
} as const;

export interface QueueNames {
  exchange: string;
  deadLetterExchange: string;
  queue: string;
  retryQueue: string;
  deadQueue: string;
}

export function queueNames(exchange: string, queue: string): QueueNames {
  return {
    exchange,
    deadLetterExchange: `${exchange}.dead-letter`,
    queue,
    retryQueue: `${queue}.retry`,
    deadQueue: deadLetterQueueName(queue),
  };
}

export async function declareExchange(ch: Channel, exchange: string): Promise<void> {
  await ch.assertExchange(exchange, 'topic', { durable: true });
}

/**
 * Declares (idempotently) the queues of a subscription and binds `routingKeys`.
 * `exclusive`: the three queues belong to this connection and vanish with it
 * (per-replica fan-out); otherwise they are durable and shared by replicas.
 */
export async function declareSubscription(ch: Channel, names: QueueNames, routingKeys: string[], exclusive: boolean): Promise<void> {
  const lifetime = exclusive ? { durable: false, exclusive: true } : { durable: true };
  await declareExchange(ch, names.exchange);
  await ch.assertExchange(names.deadLetterExchange, 'direct', { durable: true });
  await ch.assertQueue(names.deadQueue, lifetime);
  await ch.bindQueue(names.deadQueue, names.deadLetterExchange, names.queue);
  await ch.assertQueue(names.retryQueue, {
    ...lifetime,
    arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': names.queue },
  });
  await ch.assertQueue(names.queue, {
    ...lifetime,
    arguments: { 'x-dead-letter-exchange': names.deadLetterExchange, 'x-dead-letter-routing-key': names.queue },
  });
  for (const key of routingKeys) await ch.bindQueue(names.queue, names.exchange, key);
}
