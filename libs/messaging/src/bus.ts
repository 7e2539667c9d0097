// The Bus: what services see of messaging. Two implementations share it and
// its semantics: AmqpBus (split mode, RabbitMQ) and InProcessBus (all-in-one).
//
// Delivery is at least once: a message can arrive twice (a lost ack, a
// re-published outbox row), so every consumer is idempotent by `messageId`.
import { backoffDelayMs, type Message } from '@cds/core';

export interface PublishOptions {
  /** Defaults to a random uuid. The outbox relay passes the row id. */
  messageId?: string;
  /** When the message came to be (default: now). The outbox relay passes the row's time, so consumer lag includes the outbox. */
  writtenAt?: Date;
}

/** A message handed to a handler; `routingKey` narrows `payload` (it has passed the catalog). */
export type ReceivedMessage = Message & {
  messageId: string;
  /** true when this message was handed to a handler before (broker redelivery or retry). */
  redelivered: boolean;
  /** When it was written (PublishOptions.writtenAt), for consumer lag; null when the publisher did not say. */
  writtenAt: Date | null;
};

export type MessageHandler = (message: ReceivedMessage) => Promise<void>;

export interface SubscribeOptions {
  /** Durable queue name, one per consuming service (replicas share it). */
  queue: string;
  /** Topic patterns: `*` is one word, `#` zero or more words. */
  routingKeys: string[];
  /** Messages handled at the same time by this subscriber. Default 10. */
  prefetch?: number;
  /**
   * A queue of this instance alone, gone when its connection closes (edge
   * cache fan-out: every replica needs every `domain.changed`). Messages sent
   * while it is away are not kept. Default false: durable, shared by replicas.
   */
  exclusive?: boolean;
  /**
   * Resolves: acknowledged. Throws: retried after a delay, at most
   * `maxRetries` times, then dead-lettered into `<queue>.dead`.
   * A payload that fails the catalog, or of another schema version, is dead-lettered at once, unseen.
   */
  handler: MessageHandler;
  /** Called when a message of this subscription is dead-lettered (metrics): after its retries, or at once when invalid. */
  onDeadLetter?: (reason: 'rejected' | 'invalid') => void;
}

export interface Subscription {
  /** Stops consuming and waits for the handlers that are running. */
  cancel(): Promise<void>;
}

export interface Bus {
  /** Validates against the catalog; resolves only once the broker confirmed. */
  publish(routingKey: string, payload: unknown, opts?: PublishOptions): Promise<void>;
  subscribe(opts: SubscribeOptions): Promise<Subscription>;
  /** Connected and usable (readiness). */
  healthy(): boolean;
  close(): Promise<void>;
}

export const DEFAULT_PREFETCH = 10;
export const DEFAULT_MAX_RETRIES = 5;
export const DEFAULT_RETRY_DELAY_MS = 1000;
const MAX_RETRY_DELAY_MS = 5 * 60_000;

/** Delay before retry number `retry` (0-based) of a failed handler: the backoff, capped at 5 minutes. */
export function retryDelayMs(retry: number, baseMs: number): number {
  return backoffDelayMs(retry, baseMs, MAX_RETRY_DELAY_MS);
}

export function deadLetterQueueName(queue: string): string {
  return `${queue}.dead`;
}
