import type { Config } from '@cds/config';
import { GroupCommit, QUEUES, ROUTING_KEYS, type EventEmittedPayload } from '@cds/core';
import type { DataStore } from '@cds/data';
import type { Logger } from '@cds/logging';
import type { Bus, ReceivedMessage } from '@cds/messaging';
import { meteredDeadLetters, meteredHandler } from '@cds/metrics';
import { DeliveryWorker } from './delivery-worker';
import { countDeferred, initDispatcherMetrics } from './dispatcher-metrics';
import { fanOutEvents } from './fan-out';
import { guardedAgent } from './guarded-agent';
import { deliveryClient } from './send-delivery';

/** The durable queue of `event.emitted`, shared by dispatcher replicas. */
export const DISPATCHER_QUEUE = QUEUES.webhookDispatcher;

export interface DispatcherDeps {
  config: Config;
  logger: Logger;
  store: DataStore;
  bus: Bus;
  now?: () => Date;
  /** Attempts running at once (default 32). */
  concurrency?: number;
  /** How often to look for due deliveries written elsewhere (default 1000 ms). */
  pollIntervalMs?: number;
}

export interface Dispatcher {
  /** Stops consuming, stops taking deliveries, waits for the attempts running. */
  stop(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 32;
const DEFAULT_POLL_INTERVAL_MS = 1000;
/** Messages handled at once: they are fanned out together, a transaction per batch. */
const PREFETCH = 100;

/**
 * Consumes `event.emitted` (one delivery per matching active subscription,
 * written idempotently) and delivers due deliveries with retries.
 */
export async function startDispatcher(deps: DispatcherDeps): Promise<Dispatcher> {
  const { config, logger, store, bus } = deps;
  const now = deps.now ?? (() => new Date());
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
  initDispatcherMetrics(store);
  const policy = { dnsServers: config.dnsServers, allowPrivateCidrs: config.webhookAllowPrivateCidrs };
  const agent = guardedAgent(policy, config.webhookCaBundle, concurrency);
  const worker = new DeliveryWorker({
    store,
    send: { client: deliveryClient(agent), policy, timeoutMs: config.webhookTimeout, now },
    encryptionKey: config.dataEncryptionKeys,
    retrySchedule: config.webhookRetrySchedule,
    concurrency,
    maxInFlightPerSubscription: config.webhookMaxInFlightPerSubscription,
    onDeferred: countDeferred,
    pollIntervalMs: deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    logger,
    now,
  });
  // New deliveries are written leased to this worker, as many as it has room for, and sent at once.
  const fanOut = new GroupCommit(async (events: EventEmittedPayload[]) => {
    const lease = worker.leaseForNew();
    const result = await fanOutEvents(store, events, now(), lease);
    worker.adopt(lease, result.leased);
    return result.created;
  }, PREFETCH);
  const subscription = await bus.subscribe({
    queue: DISPATCHER_QUEUE,
    routingKeys: [ROUTING_KEYS.eventEmitted],
    prefetch: PREFETCH,
    onDeadLetter: meteredDeadLetters(DISPATCHER_QUEUE),
    handler: meteredHandler(
      DISPATCHER_QUEUE,
      async (message: ReceivedMessage) => {
        if (message.routingKey !== ROUTING_KEYS.eventEmitted) return;
        // Acknowledged once its deliveries are committed; a failure retries the message.
        if ((await fanOut.add(message.payload)) > 0) worker.kick();
      },
      // An event's created_at is when its outbox row was written; a redelivery's lag was counted the first time.
      { writtenAt: (message) => (message.routingKey === ROUTING_KEYS.eventEmitted && !message.redelivered ? new Date(message.payload.created_at) : null) },
    ),
  });
  worker.start();
  return {
    async stop() {
      await subscription.cancel();
      await worker.stop();
      agent.destroy();
    },
  };
}
