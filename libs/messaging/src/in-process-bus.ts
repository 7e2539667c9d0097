// In-memory Bus for all-in-one mode, with the AMQP bus's semantics: named
// queues that keep messages while nobody consumes, topic bindings, prefetch,
// asynchronous delivery, bounded retries and dead letters. Payloads travel as
// JSON text, so consumers see what they would see from RabbitMQ. Messages are
// not persisted: the outbox is what survives a restart.
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_PREFETCH,
  DEFAULT_RETRY_DELAY_MS,
  retryDelayMs,
  type Bus,
  type MessageHandler,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
} from './bus';
import { errorMessage, type Message } from '@cds/core';
import { silentLogger, type Logger } from '@cds/logging';
import { catalogEntry, serviceQueues, validateMessage } from './catalog';
import { BusUnavailableError, UnroutableMessageError } from './errors';
import { topicMatches } from './topic-match';

export interface InProcessBusOptions {
  maxRetries?: number;
  retryDelayMs?: number;
  logger?: Logger;
}

export interface DeadLetter {
  queue: string;
  routingKey: string;
  /** The payload as parsed from the message body. */
  payload: unknown;
  messageId: string;
  retries: number;
  reason: 'rejected' | 'invalid';
  error: string;
}

interface Envelope {
  routingKey: string;
  body: string;
  messageId: string;
  writtenAt: Date;
  retries: number;
  redelivered: boolean;
}

interface Consumer {
  handler: MessageHandler;
  onDeadLetter?: SubscribeOptions['onDeadLetter'];
  prefetch: number;
  inFlight: Set<Promise<void>>;
}

interface QueueState {
  name: string;
  bindings: Set<string>;
  ready: Envelope[];
  consumers: Consumer[];
  nextConsumer: number;
}

export class InProcessBus implements Bus {
  /** Messages that exhausted their retries or failed the catalog, oldest first. */
  readonly deadLetters: DeadLetter[] = [];

  private readonly queues = new Map<string, QueueState>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly logger: Logger;
  private pumpScheduled = false;
  private closed = false;

  constructor(opts: InProcessBusOptions = {}) {
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.retryBaseMs = opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
    this.logger = opts.logger ?? silentLogger;
    // As RabbitMQ's topology: the services' queues exist (and collect) before their consumers come.
    for (const { queue, routingKeys } of serviceQueues()) {
      this.queues.set(queue, { name: queue, bindings: new Set(routingKeys), ready: [], consumers: [], nextConsumer: 0 });
    }
  }

  async publish(routingKey: string, payload: unknown, opts: PublishOptions = {}): Promise<void> {
    validateMessage(routingKey, payload);
    if (this.closed) throw new BusUnavailableError('the bus is closed');
    const targets = [...this.queues.values()].filter((q) => [...q.bindings].some((b) => topicMatches(b, routingKey)));
    if (targets.length === 0 && catalogEntry(routingKey).mandatory) throw new UnroutableMessageError(routingKey);
    const body = JSON.stringify(payload);
    const messageId = opts.messageId ?? randomUUID();
    const writtenAt = opts.writtenAt ?? new Date();
    for (const queue of targets) queue.ready.push({ routingKey, body, messageId, writtenAt, retries: 0, redelivered: false });
    this.schedulePump();
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new BusUnavailableError('the bus is closed');
    // Like a durable queue: declared once, it keeps collecting messages after its consumers leave.
    let queue = this.queues.get(opts.queue);
    if (!queue) {
      queue = { name: opts.queue, bindings: new Set(), ready: [], consumers: [], nextConsumer: 0 };
      this.queues.set(opts.queue, queue);
    }
    for (const key of opts.routingKeys) queue.bindings.add(key);
    const consumer: Consumer = { handler: opts.handler, onDeadLetter: opts.onDeadLetter, prefetch: opts.prefetch ?? DEFAULT_PREFETCH, inFlight: new Set() };
    queue.consumers.push(consumer);
    this.schedulePump();
    const owner = queue;
    return {
      cancel: async () => {
        owner.consumers = owner.consumers.filter((c) => c !== consumer);
        if (opts.exclusive && this.queues.get(owner.name) === owner) this.queues.delete(owner.name);
        await Promise.allSettled([...consumer.inFlight]);
      },
    };
  }

  healthy(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    const running = [...this.queues.values()].flatMap((q) => q.consumers.flatMap((c) => [...c.inFlight]));
    for (const queue of this.queues.values()) queue.consumers = [];
    await Promise.allSettled(running);
  }

  /** Resolves once no message is waiting, running or due for a retry (tests, shutdown). */
  async whenIdle(): Promise<void> {
    for (;;) {
      const running = [...this.queues.values()].flatMap((q) => q.consumers.flatMap((c) => [...c.inFlight]));
      const waiting = [...this.queues.values()].some((q) => q.ready.length > 0 && q.consumers.length > 0);
      if (running.length === 0 && !waiting && this.retryTimers.size === 0 && !this.pumpScheduled) return;
      if (running.length > 0) await Promise.allSettled(running);
      else await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Messages waiting in `queue` (no consumer, or all consumers at their prefetch). */
  queueLength(queue: string): number {
    return this.queues.get(queue)?.ready.length ?? 0;
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      if (!this.closed) for (const queue of this.queues.values()) this.pump(queue);
    });
  }

  private pump(queue: QueueState): void {
    while (queue.ready.length > 0) {
      const consumer = this.pickConsumer(queue);
      if (!consumer) return;
      const envelope = queue.ready.shift() as Envelope;
      const run = this.deliver(queue, consumer, envelope).finally(() => {
        consumer.inFlight.delete(run);
        this.schedulePump();
      });
      consumer.inFlight.add(run);
    }
  }

  /** Round robin over the consumers that are below their prefetch. */
  private pickConsumer(queue: QueueState): Consumer | undefined {
    const count = queue.consumers.length;
    for (let i = 0; i < count; i += 1) {
      const index = (queue.nextConsumer + i) % count;
      const consumer = queue.consumers[index];
      if (consumer && consumer.inFlight.size < consumer.prefetch) {
        queue.nextConsumer = (index + 1) % count;
        return consumer;
      }
    }
    return undefined;
  }

  private async deliver(queue: QueueState, consumer: Consumer, envelope: Envelope): Promise<void> {
    let payload: unknown;
    let message: Message;
    try {
      payload = JSON.parse(envelope.body);
      message = validateMessage(envelope.routingKey, payload);
    } catch (err) {
      this.deadLetter(queue, envelope, payload, 'invalid', err);
      consumer.onDeadLetter?.('invalid');
      return;
    }
    try {
      await consumer.handler({ ...message, messageId: envelope.messageId, redelivered: envelope.redelivered, writtenAt: envelope.writtenAt });
    } catch (err) {
      if (envelope.retries >= this.maxRetries || this.closed) {
        this.deadLetter(queue, envelope, payload, 'rejected', err);
        consumer.onDeadLetter?.('rejected');
        return;
      }
      const delay = retryDelayMs(envelope.retries, this.retryBaseMs);
      this.logger.warn('message handler failed, retrying', {
        queue: queue.name, routing_key: envelope.routingKey, message_id: envelope.messageId,
        retry: envelope.retries + 1, delay_ms: delay, error: errorMessage(err),
      });
      const timer = setTimeout(() => {
        this.retryTimers.delete(timer);
        queue.ready.push({ ...envelope, retries: envelope.retries + 1, redelivered: true });
        this.schedulePump();
      }, delay);
      this.retryTimers.add(timer);
    }
  }

  private deadLetter(queue: QueueState, envelope: Envelope, payload: unknown, reason: DeadLetter['reason'], err: unknown): void {
    const error = errorMessage(err);
    this.deadLetters.push({
      queue: queue.name, routingKey: envelope.routingKey, payload, messageId: envelope.messageId,
      retries: envelope.retries, reason, error,
    });
    this.logger.error('message dead-lettered', {
      queue: queue.name, routing_key: envelope.routingKey, message_id: envelope.messageId, reason, error,
    });
  }
}
