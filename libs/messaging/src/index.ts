export * from './bus';
export * from './catalog';
export * from './errors';
export { topicMatches } from './topic-match';
export { InProcessBus, type InProcessBusOptions, type DeadLetter } from './in-process-bus';
export { AmqpBus, connectAmqpBus, type AmqpBusOptions } from './amqp-bus';
export { BUS_HEADERS, DEFAULT_EXCHANGE, queueNames, type QueueNames } from './amqp-topology';
export { startOutboxRelay, type OutboxEntry, type OutboxSource, type OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
// The payload types live in @cds/core (messages.ts); re-exported for consumers that import them with the bus.
export type { EventEmittedPayload } from '@cds/core';
