import { randomUUID } from 'node:crypto';
import { QUEUES, ROUTING_KEYS } from '@cds/core';
import { sampleDomainResource } from '../../../test/support/domain-resource';
import type { ReceivedMessage } from './bus';
import { BusUnavailableError, MessageValidationError } from './errors';
import { InProcessBus } from './in-process-bus';

const checkPayload = () => ({ domain_id: randomUUID(), application_id: randomUUID(), reason: 'created' });
const changedPayload = () => ({ domain_id: randomUUID(), hostname: 'shop.example.com', application_id: randomUUID(), change: 'status' });
const eventPayload = () => ({
  event_id: randomUUID(), type: 'domain.ready', application_id: randomUUID(),
  created_at: '2025-01-02T03:04:05.678+00:00', data: { domain: sampleDomainResource() },
});

describe('InProcessBus', () => {
  let bus: InProcessBus;
  beforeEach(() => {
    bus = new InProcessBus({ maxRetries: 3, retryDelayMs: 1 });
  });
  afterEach(() => bus.close());

  it('delivers asynchronously, as JSON, with the messageId', async () => {
    const got: ReceivedMessage[] = [];
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async (m) => { got.push(m); } });
    const payload = checkPayload();
    const writtenAt = new Date('2026-01-02T03:04:05.678Z');
    await bus.publish(ROUTING_KEYS.domainCheckRequested, payload, { messageId: 'm-1', writtenAt });
    expect(got).toHaveLength(0);
    await bus.whenIdle();
    expect(got).toEqual([{ routingKey: ROUTING_KEYS.domainCheckRequested, payload, messageId: 'm-1', redelivered: false, writtenAt }]);
    expect(got[0]?.payload).not.toBe(payload);
  });

  it('generates a uuid messageId when none is given', async () => {
    const ids: string[] = [];
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async (m) => { ids.push(m.messageId); } });
    await bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload());
    await bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload());
    await bus.whenIdle();
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('routes by topic pattern, a copy to each bound queue', async () => {
    const seen: Record<string, string[]> = { domain: [], all: [], events: [] };
    const record = (queue: string) => async (m: ReceivedMessage) => { seen[queue]?.push(m.routingKey); };
    await bus.subscribe({ queue: 'domain', routingKeys: ['domain.*'], handler: record('domain') });
    await bus.subscribe({ queue: 'all', routingKeys: ['#'], handler: record('all') });
    await bus.subscribe({ queue: 'events', routingKeys: [ROUTING_KEYS.eventEmitted, 'domain.*.requested'], handler: record('events') });
    await bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload());
    await bus.publish(ROUTING_KEYS.eventEmitted, eventPayload());
    await bus.publish(ROUTING_KEYS.domainChanged, changedPayload());
    await bus.whenIdle();
    expect(seen.domain).toEqual([ROUTING_KEYS.domainChanged]);
    expect(seen.all?.sort()).toEqual([ROUTING_KEYS.domainChanged, ROUTING_KEYS.domainCheckRequested, ROUTING_KEYS.eventEmitted]);
    expect(seen.events?.sort()).toEqual([ROUTING_KEYS.domainCheckRequested, ROUTING_KEYS.eventEmitted]);
  });

  it('shares a queue between its consumers: each message is handled once', async () => {
    const handledBy: string[] = [];
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async () => { handledBy.push('a'); } });
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async () => { handledBy.push('b'); } });
    for (let i = 0; i < 10; i += 1) await bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload());
    await bus.whenIdle();
    expect(handledBy).toHaveLength(10);
    expect(handledBy.filter((h) => h === 'a').length).toBeGreaterThan(0);
    expect(handledBy.filter((h) => h === 'b').length).toBeGreaterThan(0);
  });

  it('keeps messages of a declared queue while nobody consumes it', async () => {
    const first = await bus.subscribe({ queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async () => {} });
    await first.cancel();
    await bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload());
    await bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload());
    expect(bus.queueLength(QUEUES.checker)).toBe(2);
    let handled = 0;
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async () => { handled += 1; } });
    await bus.whenIdle();
    expect(handled).toBe(2);
  });

  it('drops the queue of an exclusive subscription when it is cancelled', async () => {
    const sub = await bus.subscribe({ queue: 'edge-1', exclusive: true, routingKeys: [ROUTING_KEYS.domainChanged], handler: async () => {} });
    await sub.cancel();
    await bus.publish(ROUTING_KEYS.domainChanged, changedPayload());
    expect(bus.queueLength('edge-1')).toBe(0);
  });

  it('runs at most `prefetch` handlers at a time', async () => {
    let running = 0;
    let peak = 0;
    await bus.subscribe({
      queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested], prefetch: 2,
      handler: async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
      },
    });
    for (let i = 0; i < 8; i += 1) await bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload());
    await bus.whenIdle();
    expect(peak).toBe(2);
  });

  it('retries a failing handler, marking the retries redelivered', async () => {
    const flags: boolean[] = [];
    await bus.subscribe({
      queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested],
      handler: async (m) => {
        flags.push(m.redelivered);
        if (flags.length < 3) throw new Error('database away');
      },
    });
    await bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload());
    await bus.whenIdle();
    expect(flags).toEqual([false, true, true]);
    expect(bus.deadLetters).toEqual([]);
  });

  it('dead-letters a message after maxRetries retries, and tells the subscription', async () => {
    let calls = 0;
    const told: string[] = [];
    await bus.subscribe({
      queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested], onDeadLetter: (reason) => told.push(reason),
      handler: async () => {
        calls += 1;
        throw new Error('always broken');
      },
    });
    const payload = checkPayload();
    await bus.publish(ROUTING_KEYS.domainCheckRequested, payload, { messageId: 'poison' });
    await bus.whenIdle();
    expect(calls).toBe(4);
    expect(bus.deadLetters).toEqual([{
      queue: QUEUES.checker, routingKey: ROUTING_KEYS.domainCheckRequested, payload, messageId: 'poison',
      retries: 3, reason: 'rejected', error: 'always broken',
    }]);
    expect(told).toEqual(['rejected']);
  });

  it('dead-letters at once, unseen by the handler, a message that fails the catalog on arrival', async () => {
    let calls = 0;
    const told: string[] = [];
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async () => { calls += 1; }, onDeadLetter: (reason) => told.push(reason) });
    // Valid as published, but its JSON form (what travels) is not: the consumer must check again.
    const payload = checkPayload();
    Object.defineProperty(payload, 'toJSON', { value: () => ({ domain_id: 'nope' }) });
    await bus.publish(ROUTING_KEYS.domainCheckRequested, payload, { messageId: 'bad' });
    await bus.whenIdle();
    expect(calls).toBe(0);
    expect(bus.deadLetters).toHaveLength(1);
    expect(bus.deadLetters[0]).toMatchObject({ messageId: 'bad', reason: 'invalid', retries: 0, payload: { domain_id: 'nope' } });
    expect(told).toEqual(['invalid']);
  });

  it('refuses to publish an invalid payload or an unknown routing key', async () => {
    let calls = 0;
    await bus.subscribe({ queue: 'all', routingKeys: ['#'], handler: async () => { calls += 1; } });
    await expect(bus.publish(ROUTING_KEYS.domainCheckRequested, { domain_id: 'x' })).rejects.toThrow(MessageValidationError);
    await expect(bus.publish('domain.unknown', {})).rejects.toThrow(MessageValidationError);
    await bus.whenIdle();
    expect(calls).toBe(0);
  });

  it("keeps a mandatory message in its service's queue until that service subscribes, and drops a fan-out one", async () => {
    await expect(bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload())).resolves.toBeUndefined();
    await expect(bus.publish(ROUTING_KEYS.domainChanged, changedPayload())).resolves.toBeUndefined();
    expect(bus.queueLength(QUEUES.checker)).toBe(1);
    const got: string[] = [];
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async (m) => { got.push(m.routingKey); } });
    await bus.whenIdle();
    expect(got).toEqual([ROUTING_KEYS.domainCheckRequested]);
  });

  it('is unhealthy and refuses to publish once closed', async () => {
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async () => {} });
    expect(bus.healthy()).toBe(true);
    await bus.close();
    expect(bus.healthy()).toBe(false);
    await expect(bus.publish(ROUTING_KEYS.domainCheckRequested, checkPayload())).rejects.toThrow(BusUnavailableError);
  });
});
