// AmqpBus against a real RabbitMQ: confirms, retries into the dead-letter
// queue, and recovery after the broker closes the connection.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GetMessage } from 'amqplib';
import { ROUTING_KEYS } from '@cds/core';
import {
  AmqpBus, BUS_HEADERS, BusUnavailableError, MessageValidationError, connectAmqpBus,
  type AmqpBusOptions, type ReceivedMessage,
} from '@cds/messaging';
import { eventually } from '../../support/eventually';
import {
  closeAllConnections, createVhost, deleteVhost, memoryLogger, messageCount, publishRaw, removeTopology, uniqueName, withChannel,
  type TestVhost,
} from './rabbit';

const check = () => ({ domain_id: randomUUID(), application_id: randomUUID(), reason: 'created' as const });
const changed = () => ({ domain_id: randomUUID(), hostname: 'shop.example.com', application_id: randomUUID(), change: 'status' as const });

describe('AmqpBus (RabbitMQ)', () => {
  let vhost: TestVhost;
  let exchange: string;
  let queues: string[];
  const buses: AmqpBus[] = [];

  const start = async (opts: Partial<AmqpBusOptions> = {}): Promise<AmqpBus> => {
    const bus = await connectAmqpBus({ url: vhost.url, exchange, retryDelayMs: 50, maxRetries: 2, ...opts });
    buses.push(bus);
    return bus;
  };
  const queue = (): string => {
    const name = uniqueName('q');
    queues.push(name);
    return name;
  };

  beforeAll(async () => {
    vhost = await createVhost();
  });
  afterAll(async () => {
    await deleteVhost(vhost);
  });
  beforeEach(() => {
    exchange = uniqueName('test-exchange');
    queues = [];
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    await removeTopology(vhost, exchange, queues);
  });

  it('delivers published messages, and publish resolves once the broker holds the message', async () => {
    const bus = await start();
    expect(bus.healthy()).toBe(true);
    const got: ReceivedMessage[] = [];
    const q = queue();
    const sub = await bus.subscribe({ queue: q, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async (m) => { got.push(m); } });
    const payloads = [check(), check(), check()];
    const ids = payloads.map(() => randomUUID());
    const writtenAt = new Date(Date.now() - 1234);
    for (const [i, payload] of payloads.entries()) await bus.publish(ROUTING_KEYS.domainCheckRequested, payload, { messageId: ids[i], ...(i === 0 ? { writtenAt } : {}) });
    await eventually('three deliveries', () => got.length === 3, { timeoutMs: 5000 });
    expect(got.map((m) => m.messageId).sort()).toEqual([...ids].sort());
    for (const m of got) {
      expect(m.routingKey).toBe(ROUTING_KEYS.domainCheckRequested);
      expect(m.redelivered).toBe(false);
      expect(payloads).toContainEqual(m.payload);
      // The time the publisher gave (to the millisecond), or the time of publishing.
      if (m.messageId === ids[0]) expect(m.writtenAt).toEqual(writtenAt);
      else expect(Math.abs(Date.now() - (m.writtenAt as Date).getTime())).toBeLessThan(5000);
    }

    // With no consumer, a confirmed message is already in the durable queue.
    await sub.cancel();
    await bus.publish(ROUTING_KEYS.domainCheckRequested, check());
    expect(await messageCount(vhost, q)).toBe(1);
  });

  it("refuses invalid payloads, and keeps a mandatory message in its service's queue before that service runs", async () => {
    const bus = await start();
    await expect(bus.publish(ROUTING_KEYS.domainCheckRequested, { domain_id: 'x' })).rejects.toThrow(MessageValidationError);
    const before = await messageCount(vhost, 'checker');
    await expect(bus.publish(ROUTING_KEYS.domainCheckRequested, check())).resolves.toBeUndefined();
    expect(await messageCount(vhost, 'checker')).toBe(before + 1);
    // The edge fan-out is not mandatory: nobody listening is fine.
    await expect(bus.publish(ROUTING_KEYS.domainChanged, changed())).resolves.toBeUndefined();
    expect(bus.healthy()).toBe(true);
  });

  it('retries a failing handler a bounded number of times, then dead-letters the message', async () => {
    const bus = await start({ maxRetries: 2, retryDelayMs: 50 });
    const q = queue();
    const flags: boolean[] = [];
    const told: string[] = [];
    await bus.subscribe({
      queue: q, routingKeys: ['domain.*.requested'], onDeadLetter: (reason) => told.push(reason),
      handler: async (m) => {
        flags.push(m.redelivered);
        throw new Error('handler broken');
      },
    });
    const messageId = randomUUID();
    const payload = check();
    await bus.publish(ROUTING_KEYS.domainCheckRequested, payload, { messageId });
    await eventually('the dead letter', async () => (await messageCount(vhost, `${q}.dead`)) === 1, { timeoutMs: 10_000 });
    await sleep(300); // no further (wrong) retry for 300 ms: the quiet is what is checked
    expect(flags).toEqual([false, true, true]);
    expect(told).toEqual(['rejected']);

    const dead = await withChannel(vhost, (ch) => ch.get(`${q}.dead`, { noAck: true }));
    expect(dead).not.toBe(false);
    const msg = dead as GetMessage;
    expect(JSON.parse(msg.content.toString())).toEqual(payload);
    expect(msg.properties.messageId).toBe(messageId);
    expect(msg.properties.headers?.[BUS_HEADERS.retryCount]).toBe(2);
    expect(msg.properties.headers?.[BUS_HEADERS.routingKey]).toBe(ROUTING_KEYS.domainCheckRequested);
    expect(msg.properties.headers?.['x-death']?.[0]).toMatchObject({ queue: q, reason: 'rejected' });
    expect(await messageCount(vhost, q)).toBe(0);
    expect(await messageCount(vhost, `${q}.retry`)).toBe(0);
  });

  it('acks a message whose handler succeeds on a retry', async () => {
    const bus = await start({ maxRetries: 3, retryDelayMs: 30 });
    const q = queue();
    let calls = 0;
    const routingKeys: string[] = [];
    await bus.subscribe({
      queue: q, routingKeys: ['#'],
      handler: async (m) => {
        calls += 1;
        routingKeys.push(m.routingKey);
        if (calls < 3) throw new Error('not yet');
      },
    });
    await bus.publish(ROUTING_KEYS.domainCheckRequested, check());
    await eventually('the third attempt', () => calls === 3, { timeoutMs: 5000 });
    await sleep(200); // no fourth attempt for 200 ms: the quiet is what is checked
    expect(calls).toBe(3);
    // The original routing key survives the trip through the retry queue.
    expect(routingKeys).toEqual([ROUTING_KEYS.domainCheckRequested, ROUTING_KEYS.domainCheckRequested, ROUTING_KEYS.domainCheckRequested]);
    expect(await messageCount(vhost, `${q}.dead`)).toBe(0);
    expect(await messageCount(vhost, q)).toBe(0);
  });

  it('dead-letters at once, unseen, a message that fails the catalog', async () => {
    const bus = await start();
    const q = queue();
    let calls = 0;
    await bus.subscribe({ queue: q, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async () => { calls += 1; } });
    await publishRaw(vhost, exchange, [
      { routingKey: ROUTING_KEYS.domainCheckRequested, body: '{"domain_id":"nope"}', messageId: 'raw-1' },
      { routingKey: ROUTING_KEYS.domainCheckRequested, body: 'not json', messageId: 'raw-2' },
      { routingKey: ROUTING_KEYS.domainCheckRequested, body: JSON.stringify(check()) }, // no messageId
      { routingKey: ROUTING_KEYS.domainCheckRequested, body: JSON.stringify(check()), messageId: 'raw-ok' },
    ]);
    await eventually('three dead letters', async () => (await messageCount(vhost, `${q}.dead`)) === 3, { timeoutMs: 5000 });
    await eventually('the valid message', () => calls === 1, { timeoutMs: 5000 });
    expect(calls).toBe(1);
    expect(await messageCount(vhost, q)).toBe(0);
  });

  it('dead-letters at once, unseen, a message of another schema version; one without the header is version 1', async () => {
    const logger = memoryLogger();
    const bus = await start({ logger });
    const q = queue();
    const got: string[] = [];
    const told: string[] = [];
    await bus.subscribe({
      queue: q, routingKeys: [ROUTING_KEYS.domainCheckRequested], onDeadLetter: (reason) => told.push(reason),
      handler: async (m) => { got.push(m.messageId); },
    });
    await publishRaw(vhost, exchange, [
      { routingKey: ROUTING_KEYS.domainCheckRequested, body: JSON.stringify(check()), messageId: 'v2', headers: { [BUS_HEADERS.schemaVersion]: 2 } },
      { routingKey: ROUTING_KEYS.domainCheckRequested, body: JSON.stringify(check()), messageId: 'v1', headers: { [BUS_HEADERS.schemaVersion]: 1 } },
      { routingKey: ROUTING_KEYS.domainCheckRequested, body: JSON.stringify(check()), messageId: 'unversioned' },
    ]);
    await eventually('the dead letter', async () => (await messageCount(vhost, `${q}.dead`)) === 1, { timeoutMs: 5000 });
    await eventually('the two messages of version 1', () => got.length === 2, { timeoutMs: 5000 });
    expect(got.sort()).toEqual(['unversioned', 'v1']);
    expect(told).toEqual(['invalid']);
    const dead = await withChannel(vhost, (ch) => ch.get(`${q}.dead`, { noAck: true }));
    expect(dead).not.toBe(false);
    expect((dead as GetMessage).properties.messageId).toBe('v2');
    expect(logger.lines).toContainEqual({ level: 'error', message: 'invalid message dead-lettered' });
  });

  it('writes the catalog version of the payload in the x-schema-version header', async () => {
    const bus = await start();
    const q = queue();
    await withChannel(vhost, async (ch) => {
      await ch.assertQueue(q, { durable: false });
      await ch.bindQueue(q, exchange, ROUTING_KEYS.domainChanged);
    });
    await bus.publish(ROUTING_KEYS.domainChanged, changed());
    const msg = await withChannel(vhost, (ch) => ch.get(q, { noAck: true }));
    expect(msg).not.toBe(false);
    expect((msg as GetMessage).properties.headers?.[BUS_HEADERS.schemaVersion]).toBe(1);
  });

  it('rejects a subscription whose queue exists with other arguments, without disturbing the rest', async () => {
    const logger = memoryLogger();
    const bus = await start({ logger });
    const good = queue();
    const got: string[] = [];
    await bus.subscribe({ queue: good, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async (m) => { got.push(m.messageId); } });
    const clash = queue();
    await withChannel(vhost, (ch) => ch.assertQueue(clash, { durable: true, arguments: { 'x-max-length': 5 } }));
    await expect(bus.subscribe({ queue: clash, routingKeys: [ROUTING_KEYS.domainChanged], handler: async () => {} })).rejects.toThrow(/PRECONDITION_FAILED/);
    await sleep(100); // the refused subscription leaves the connection up for 100 ms: the quiet is what is checked
    expect(bus.healthy()).toBe(true);
    await bus.publish(ROUTING_KEYS.domainCheckRequested, check(), { messageId: 'still-works' });
    await eventually('a delivery on the other subscription', () => got.includes('still-works'), { timeoutMs: 5000 });
    expect(logger.lines.map((l) => l.message)).not.toContain('lost the connection to the message broker, reconnecting');
  });

  it('fails the first connection loudly when the broker cannot be reached', async () => {
    await expect(connectAmqpBus({ url: 'amqp://guest:guest@127.0.0.1:1', exchange })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('reconnects after the broker closes its connections, and the subscription resumes', async () => {
    const logger = memoryLogger();
    const bus = await start({ logger, reconnectDelayMs: { initial: 1500, max: 3000 } });
    const q = queue();
    const got: string[] = [];
    await bus.subscribe({ queue: q, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async (m) => { got.push(m.messageId); } });
    await bus.publish(ROUTING_KEYS.domainCheckRequested, check(), { messageId: 'before' });
    await eventually('the first delivery', () => got.length === 1, { timeoutMs: 5000 });

    await closeAllConnections(vhost);
    await eventually('the bus to notice', () => !bus.healthy(), { timeoutMs: 5000 });
    // While disconnected, publish fails fast instead of hanging.
    const started = Date.now();
    await expect(bus.publish(ROUTING_KEYS.domainCheckRequested, check())).rejects.toThrow(BusUnavailableError);
    expect(Date.now() - started).toBeLessThan(500);

    await eventually('the reconnect', () => bus.healthy(), { timeoutMs: 10_000 });
    await bus.publish(ROUTING_KEYS.domainCheckRequested, check(), { messageId: 'after' });
    await eventually('a delivery after the reconnect', () => got.includes('after'), { timeoutMs: 5000 });
    expect(got).toEqual(['before', 'after']);
    const messages = logger.lines.map((l) => l.message);
    expect(messages).toContain('lost the connection to the message broker, reconnecting');
    expect(messages).not.toContain('an amqp channel closed unexpectedly, reconnecting');
  });
});
