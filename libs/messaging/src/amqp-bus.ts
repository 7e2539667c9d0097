// RabbitMQ implementation of the Bus (amqplib). One connection; a confirm
// channel for publishing; one confirm channel per subscription (its prefetch,
// its manual acks, and confirmed republishing into the retry queue). When the
// connection drops, publish rejects at once and the bus reconnects with
// backoff, re-declares the topology and re-attaches every subscription.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage, type Options } from 'amqplib';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_PREFETCH,
  DEFAULT_RETRY_DELAY_MS,
  retryDelayMs,
  type Bus,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
} from './bus';
import { backoffDelayMs, errorMessage, type Message } from '@cds/core';
import { silentLogger, type Logger } from '@cds/logging';
import { BUS_HEADERS, DEFAULT_EXCHANGE, declareExchange, declareSubscription, queueNames, type QueueNames } from './amqp-topology';
import { catalogEntry, serviceQueues, validateMessage } from './catalog';
import { BusUnavailableError, PublishRejectedError, UnroutableMessageError } from './errors';

export interface AmqpBusOptions {
  url: string;
  /** Tests only: isolates a test's topology. Default `custom-domains`. */
  exchange?: string;
  logger?: Logger;
  maxRetries?: number;
  /** Delay before the first retry of a failed handler; doubles each retry. */
  retryDelayMs?: number;
  /** How long a publish waits for the broker's confirm. Default 10 s. */
  publishTimeoutMs?: number;
  /** Reconnect backoff: first delay, doubling up to `max`. Default 200 ms .. 10 s. */
  reconnectDelayMs?: { initial: number; max: number };
  /** Shown by `rabbitmqctl list_connections`. */
  connectionName?: string;
  /** amqps: PEM certificates of the CAs trusted for the broker's certificate, instead of node's (AMQP_CA_BUNDLE). */
  ca?: string;
}

type State = 'idle' | 'connecting' | 'connected' | 'closed';

/** The live connection and its publishing channel. */
interface Link {
  conn: ChannelModel;
  publisher: ConfirmChannel;
  /** messageIds the broker returned as unroutable; their confirm follows the return. */
  returned: Set<string>;
}

/** A subscription attached to one connection. */
interface Attachment {
  conn: ChannelModel;
  ch: ConfirmChannel;
  consumerTag: string;
  inFlight: Set<Promise<void>>;
  /** Closing it is ours (setup or cancel), not a failure to react to. */
  expectClose: boolean;
}

interface SubscriptionState {
  opts: Required<Pick<SubscribeOptions, 'prefetch' | 'exclusive'>> & SubscribeOptions;
  names: QueueNames;
  attachment: Attachment | null;
}

export class AmqpBus implements Bus {
  private readonly url: string;
  private readonly exchange: string;
  private readonly logger: Logger;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly publishTimeoutMs: number;
  private readonly reconnectDelay: { initial: number; max: number };
  private readonly connectionName: string;
  private readonly ca: string | undefined;

  private state: State = 'idle';
  private link: Link | null = null;
  private readonly subscriptions = new Set<SubscriptionState>();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectAttempt = 0;
  private establishing: Promise<void> | null = null;
  private readonly closedConnections = new WeakSet<ChannelModel>();

  constructor(opts: AmqpBusOptions) {
    this.url = opts.url;
    this.exchange = opts.exchange ?? DEFAULT_EXCHANGE;
    this.logger = opts.logger ?? silentLogger;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.retryBaseMs = opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
    this.publishTimeoutMs = opts.publishTimeoutMs ?? 10_000;
    this.reconnectDelay = opts.reconnectDelayMs ?? { initial: 200, max: 10_000 };
    this.connectionName = opts.connectionName ?? `custom-domains ${os.hostname()} ${process.pid}`;
    this.ca = opts.ca;
  }

  /** First connection: rejects if the broker cannot be reached (start-up fails loudly). */
  async connect(): Promise<void> {
    if (this.state !== 'idle') throw new Error('AmqpBus.connect() is called once');
    this.state = 'connecting';
    try {
      await this.runEstablish();
    } catch (err) {
      this.state = 'closed';
      throw err;
    }
  }

  /**
   * First connection in the background: until the broker answers it is retried
   * like a lost one, publish rejects and subscriptions wait to be attached. For
   * a service that has work to do without the broker (the API's outbox keeps
   * every message meanwhile).
   */
  connectInBackground(): void {
    if (this.state !== 'idle') throw new Error('AmqpBus.connect() is called once');
    this.state = 'connecting';
    this.runEstablish().catch((err: unknown) => {
      if (this.state === 'closed') return;
      this.logger.warn('cannot reach the message broker yet, retrying', { error: errorMessage(err) });
      this.scheduleReconnect();
    });
  }

  healthy(): boolean {
    return this.state === 'connected' && this.link !== null;
  }

  async publish(routingKey: string, payload: unknown, opts: PublishOptions = {}): Promise<void> {
    validateMessage(routingKey, payload);
    const { version, mandatory } = catalogEntry(routingKey);
    const link = this.link;
    if (this.state !== 'connected' || !link) throw new BusUnavailableError(`not connected to the broker (${this.state})`);
    const messageId = opts.messageId ?? randomUUID();
    await confirmPublish(link.publisher, this.exchange, routingKey, Buffer.from(JSON.stringify(payload)), {
      persistent: true,
      mandatory,
      contentType: 'application/json',
      messageId,
      timestamp: Math.floor(Date.now() / 1000),
      headers: { [BUS_HEADERS.schemaVersion]: version, [BUS_HEADERS.writtenAt]: (opts.writtenAt ?? new Date()).getTime() },
    }, this.publishTimeoutMs);
    if (link.returned.delete(messageId)) throw new UnroutableMessageError(routingKey);
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    if (this.state === 'closed') throw new BusUnavailableError('the bus is closed');
    const sub: SubscriptionState = {
      opts: { ...opts, prefetch: opts.prefetch ?? DEFAULT_PREFETCH, exclusive: opts.exclusive ?? false },
      names: queueNames(this.exchange, opts.queue),
      attachment: null,
    };
    this.subscriptions.add(sub);
    const link = this.link;
    if (this.state === 'connected' && link) {
      try {
        await this.attach(sub, link.conn);
      } catch (err) {
        // Still the same connection: the failure is this subscription's own (e.g. a
        // queue declared elsewhere with other arguments). Otherwise the reconnect attaches it.
        if (this.link === link) {
          this.subscriptions.delete(sub);
          throw err;
        }
      }
    }
    // Before connect() (or while reconnecting) the subscription attaches when the connection is up.
    return { cancel: () => this.cancel(sub) };
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (this.establishing) await this.establishing.catch(() => undefined);
    await Promise.allSettled([...this.subscriptions].map((sub) => this.cancel(sub)));
    const link = this.link;
    this.link = null;
    if (link) {
      await settle(() => link.publisher.waitForConfirms());
      await settle(() => link.conn.close());
    }
  }

  private async cancel(sub: SubscriptionState): Promise<void> {
    this.subscriptions.delete(sub);
    const attachment = sub.attachment;
    sub.attachment = null;
    if (!attachment) return;
    attachment.expectClose = true;
    await settle(() => attachment.ch.cancel(attachment.consumerTag));
    await Promise.allSettled([...attachment.inFlight]);
    await settle(() => attachment.ch.close());
  }

  private async runEstablish(): Promise<void> {
    this.establishing = this.establish();
    try {
      await this.establishing;
    } finally {
      this.establishing = null;
    }
  }

  /** Opens a connection, declares the exchange and attaches every subscription; then goes live. */
  private async establish(): Promise<void> {
    const conn = await amqp.connect(this.url, { clientProperties: { connection_name: this.connectionName }, ...(this.ca === undefined ? {} : { ca: [this.ca] }) });
    conn.on('error', (err: Error) => this.logger.warn('amqp connection error', { error: err.message }));
    conn.on('close', () => {
      this.closedConnections.add(conn);
      this.onConnectionClosed(conn);
    });
    try {
      const publisher = await conn.createConfirmChannel();
      const link: Link = { conn, publisher, returned: new Set() };
      publisher.on('error', (err: Error) => this.logger.warn('amqp publishing channel error', { error: err.message }));
      publisher.on('close', () => this.onChannelClosed(conn, 'publishing'));
      publisher.on('return', (msg: ConsumeMessage) => {
        if (typeof msg.properties.messageId === 'string') link.returned.add(msg.properties.messageId);
      });
      await declareExchange(publisher, this.exchange);
      for (const { queue, routingKeys } of serviceQueues()) {
        await declareSubscription(publisher, queueNames(this.exchange, queue), routingKeys, false);
      }
      // Loop: a subscribe() that arrives meanwhile is attached before going live.
      for (;;) {
        const pending = [...this.subscriptions].filter((sub) => sub.attachment?.conn !== conn);
        if (pending.length === 0) break;
        for (const sub of pending) await this.attach(sub, conn);
      }
      if (this.closedConnections.has(conn)) throw new BusUnavailableError('the connection closed while it was being set up');
      if (this.state === 'closed') {
        await settle(() => conn.close());
        return;
      }
      this.link = link;
      this.state = 'connected';
      this.reconnectAttempt = 0;
      this.logger.info('connected to the message broker', { exchange: this.exchange, subscriptions: this.subscriptions.size });
    } catch (err) {
      await settle(() => conn.close());
      throw err;
    }
  }

  private async attach(sub: SubscriptionState, conn: ChannelModel): Promise<void> {
    const ch = await conn.createConfirmChannel();
    const attachment: Attachment = { conn, ch, consumerTag: '', inFlight: new Set(), expectClose: true };
    ch.on('error', (err: Error) => this.logger.warn('amqp consumer channel error', { queue: sub.names.queue, error: err.message }));
    ch.on('close', () => {
      if (!attachment.expectClose) this.onChannelClosed(conn, `consumer of ${sub.names.queue}`);
    });
    try {
      await declareSubscription(ch, sub.names, sub.opts.routingKeys, sub.opts.exclusive);
      await ch.prefetch(sub.opts.prefetch);
      const { consumerTag } = await ch.consume(sub.names.queue, (msg) => {
        if (msg === null) {
          // The broker cancelled the consumer (queue deleted): start over on a fresh connection.
          this.logger.warn('the broker cancelled a consumer', { queue: sub.names.queue });
          if (sub.attachment === attachment) void settle(() => conn.close());
          return;
        }
        const run = this.handle(sub, attachment, msg).finally(() => attachment.inFlight.delete(run));
        attachment.inFlight.add(run);
      }, { noAck: false });
      attachment.consumerTag = consumerTag;
    } catch (err) {
      await settle(() => ch.close());
      throw err;
    }
    if (!this.subscriptions.has(sub)) {
      // Cancelled while attaching.
      await settle(() => ch.close());
      return;
    }
    attachment.expectClose = false;
    sub.attachment = attachment;
  }

  /** Never throws: every outcome is an ack, a retry or a dead letter. */
  private async handle(sub: SubscriptionState, attachment: Attachment, msg: ConsumeMessage): Promise<void> {
    const { ch } = attachment;
    const headers = msg.properties.headers ?? {};
    const retries = toCount(headers[BUS_HEADERS.retryCount]);
    const original: unknown = headers[BUS_HEADERS.routingKey];
    const routingKey = typeof original === 'string' ? original : msg.fields.routingKey;
    const messageId: unknown = msg.properties.messageId;
    const context = { queue: sub.names.queue, routing_key: routingKey, message_id: messageId, retries };

    let message: Message;
    try {
      // Consumers are idempotent by messageId, so a message without one cannot be handled safely.
      if (typeof messageId !== 'string' || messageId === '') throw new Error('the message has no messageId');
      message = validateMessage(routingKey, JSON.parse(msg.content.toString('utf8')), schemaVersion(headers[BUS_HEADERS.schemaVersion]));
    } catch (err) {
      this.logger.error('invalid message dead-lettered', { ...context, error: errorMessage(err) });
      ignoreClosed(() => ch.nack(msg, false, false));
      sub.opts.onDeadLetter?.('invalid');
      return;
    }

    let failure: unknown;
    try {
      const writtenAt = typeof headers[BUS_HEADERS.writtenAt] === 'number' ? new Date(headers[BUS_HEADERS.writtenAt] as number) : null;
      await sub.opts.handler({ ...message, messageId, redelivered: msg.fields.redelivered || retries > 0, writtenAt });
      ignoreClosed(() => ch.ack(msg));
      return;
    } catch (err) {
      failure = err;
    }

    if (retries >= this.maxRetries) {
      this.logger.error('message dead-lettered after its retries', { ...context, error: errorMessage(failure) });
      ignoreClosed(() => ch.nack(msg, false, false));
      sub.opts.onDeadLetter?.('rejected');
      return;
    }
    const delay = retryDelayMs(retries, this.retryBaseMs);
    const { 'x-death': _death, ...kept } = headers;
    try {
      // Republish (confirmed) before acking, so the message is never in neither queue.
      await confirmPublish(ch, '', sub.names.retryQueue, msg.content, {
        persistent: true,
        contentType: msg.properties.contentType as string | undefined,
        messageId,
        timestamp: msg.properties.timestamp as number | undefined,
        headers: { ...kept, [BUS_HEADERS.retryCount]: retries + 1, [BUS_HEADERS.routingKey]: routingKey },
        expiration: String(delay),
      }, this.publishTimeoutMs);
      ignoreClosed(() => ch.ack(msg));
      this.logger.warn('message handler failed, retrying', { ...context, delay_ms: delay, error: errorMessage(failure) });
    } catch (err) {
      // Could not park it in the retry queue: hand it back to the broker now.
      this.logger.warn('could not schedule a retry, requeueing', { ...context, error: errorMessage(err) });
      ignoreClosed(() => ch.nack(msg, false, true));
    }
  }

  private onConnectionClosed(conn: ChannelModel): void {
    // A connection still being set up is dealt with by establish() itself.
    if (this.link?.conn !== conn) return;
    this.link = null;
    if (this.state !== 'connected') return;
    this.state = 'connecting';
    this.logger.warn('lost the connection to the message broker, reconnecting');
    this.scheduleReconnect();
  }

  /** A channel we did not close died: rebuild everything on a new connection. */
  private onChannelClosed(conn: ChannelModel, which: string): void {
    // A closing connection closes its channels first and emits its own 'close' right after.
    setImmediate(() => {
      if (this.state === 'closed' || this.closedConnections.has(conn)) return;
      this.logger.warn('an amqp channel closed unexpectedly, reconnecting', { channel: which });
      void settle(() => conn.close());
    });
  }

  private scheduleReconnect(): void {
    const { initial, max } = this.reconnectDelay;
    // Spread by ±25% so that replicas cut off together do not come back in step.
    const delay = Math.round(Math.min(backoffDelayMs(this.reconnectAttempt, initial, max) * (0.75 + Math.random() * 0.5), max));
    this.reconnectAttempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.state === 'closed') return;
      this.runEstablish().catch((err: unknown) => {
        if (this.state === 'closed') return;
        this.logger.warn('reconnect to the message broker failed', { attempt: this.reconnectAttempt, error: errorMessage(err) });
        this.scheduleReconnect();
      });
    }, delay);
  }
}

/** Creates an AmqpBus and waits for its first connection. */
export async function connectAmqpBus(opts: AmqpBusOptions): Promise<AmqpBus> {
  const bus = new AmqpBus(opts);
  await bus.connect();
  return bus;
}

/** Publishes on a confirm channel; resolves on the broker's ack, rejects on nack, close or timeout. */
function confirmPublish(
  ch: ConfirmChannel, exchange: string, routingKey: string, content: Buffer, options: Options.Publish, timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err: Error | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new BusUnavailableError(`the broker did not confirm within ${timeoutMs} ms`)), timeoutMs);
    try {
      ch.publish(exchange, routingKey, content, options, (err: unknown) => {
        if (!err) finish(null);
        else if (err instanceof Error && err.message === 'message nacked') finish(new PublishRejectedError('the broker refused the message'));
        else finish(new BusUnavailableError(`publish failed: ${errorMessage(err)}`));
      });
    } catch (err) {
      finish(new BusUnavailableError(`publish failed: ${errorMessage(err)}`));
    }
  });
}

/** The payload version a message says it has: 1 without the header (published before versions were written). */
function schemaVersion(header: unknown): number {
  if (header === undefined || header === null) return 1;
  return typeof header === 'number' ? header : Number(header);
}

function toCount(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/** Ack/nack on a channel that died throws; the broker then redelivers the message anyway. */
function ignoreClosed(fn: () => void): void {
  try {
    fn();
  } catch {
    // channel closed
  }
}

/** Runs a teardown step whose failure (already closed) changes nothing. */
async function settle(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch {
    // already closed
  }
}
