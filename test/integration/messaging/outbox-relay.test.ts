// The outbox relay against a real broker whose connections keep being closed.
// The outbox table is an in-memory stand-in; the broker is real.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHECK_REASONS, ROUTING_KEYS } from '@cds/core';
import { connectAmqpBus, startOutboxRelay, type AmqpBus, type OutboxEntry, type OutboxSource } from '@cds/messaging';
import { eventually } from '../../support/eventually';
import { closeAllConnections, createVhost, deleteVhost, memoryLogger, removeTopology, uniqueName, type TestVhost } from './rabbit';

class MemoryOutbox implements OutboxSource {
  readonly rows: (OutboxEntry & { publishedAt: Date | null; attempts: number })[] = [];
  add(routingKey: string, payload: unknown): void {
    this.rows.push({ id: randomUUID(), routingKey, payload, publishedAt: null, attempts: 0 });
  }
  async unpublished(limit: number): Promise<OutboxEntry[]> {
    return this.rows.filter((r) => !r.publishedAt).slice(0, limit).map(({ id, routingKey, payload }) => ({ id, routingKey, payload }));
  }
  async markPublished(ids: string[], at: Date): Promise<void> {
    for (const row of this.rows) if (ids.includes(row.id)) row.publishedAt = at;
  }
  async recordFailedAttempt(ids: string[]): Promise<void> {
    for (const row of this.rows) if (ids.includes(row.id)) row.attempts += 1;
  }
  async setAside(): Promise<void> {
    throw new Error('every row here is valid: none is set aside');
  }
  unpublishedCount(): number {
    return this.rows.filter((r) => !r.publishedAt).length;
  }
}

describe('outbox relay through RabbitMQ', () => {
  let vhost: TestVhost;
  const exchange = uniqueName('test-exchange');
  const queue = uniqueName('q-checker');
  const buses: AmqpBus[] = [];

  beforeAll(async () => {
    vhost = await createVhost();
  });
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await removeTopology(vhost, exchange, [queue]);
    await deleteVhost(vhost);
  });

  it('loses nothing while the connection is closed again and again, and marks every row published', async () => {
    const connect = async (): Promise<AmqpBus> => {
      const bus = await connectAmqpBus({
        url: vhost.url, exchange, reconnectDelayMs: { initial: 100, max: 400 }, publishTimeoutMs: 2000,
      });
      buses.push(bus);
      return bus;
    };
    const publisher = await connect();
    const consumer = await connect();

    // Idempotent consumer: handles each messageId once; redeliveries are counted and skipped.
    const handled = new Set<string>();
    let duplicates = 0;
    await consumer.subscribe({
      queue, routingKeys: [ROUTING_KEYS.domainCheckRequested], prefetch: 20,
      handler: async (m) => {
        if (handled.has(m.messageId)) duplicates += 1;
        else handled.add(m.messageId);
      },
    });

    const outbox = new MemoryOutbox();
    const logger = memoryLogger();
    const relay = startOutboxRelay({ source: outbox, bus: publisher, intervalMs: 20, maxBackoffMs: 300, logger });

    // The writer commits a row (and kicks the relay) every 10 ms throughout.
    let writing = true;
    let backlogWhileDown = 0;
    const writer = (async () => {
      while (writing) {
        outbox.add(ROUTING_KEYS.domainCheckRequested, { domain_id: randomUUID(), application_id: randomUUID(), reason: CHECK_REASONS.created });
        relay.kick();
        if (!publisher.healthy()) backlogWhileDown = Math.max(backlogWhileDown, outbox.unpublishedCount());
        await sleep(10);
      }
    })();

    // The writer's pace and the outages' rhythm are the scenario.
    await sleep(300);
    for (let i = 0; i < 3; i += 1) {
      await closeAllConnections(vhost);
      await sleep(150 + i * 100);
    }
    writing = false;
    await writer;

    // Rows piled up while the broker was out of reach.
    expect(backlogWhileDown).toBeGreaterThan(0);
    await eventually('every row to be marked published', () => outbox.unpublishedCount() === 0, { timeoutMs: 20_000 });
    await eventually('every row to reach the consumer', () => handled.size === outbox.rows.length, { timeoutMs: 20_000 });
    await relay.stop();

    // Exactly the rows, each once: nothing lost, nothing unknown.
    const ids = outbox.rows.map((r) => r.id).sort();
    expect([...handled].sort()).toEqual(ids);
    expect(outbox.rows.every((r) => r.publishedAt instanceof Date)).toBe(true);
    expect(logger.lines.filter((l) => l.message === 'outbox relay pass failed, backing off').length).toBeGreaterThan(0);
    console.info(`outbox relay: ${ids.length} rows, ${duplicates} duplicate deliveries absorbed by messageId`);
  });
});
