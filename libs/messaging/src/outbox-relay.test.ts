import { randomUUID } from 'node:crypto';
import { QUEUES, ROUTING_KEYS } from '@cds/core';
import type { Logger } from '@cds/logging';
import { eventually } from '../../../test/support/eventually';
import type { Bus, ReceivedMessage, PublishOptions, SubscribeOptions, Subscription } from './bus';
import { InProcessBus } from './in-process-bus';
import { startOutboxRelay, type OutboxEntry, type OutboxRelay, type OutboxSource } from './outbox-relay';

/** Stand-in for the outbox table. */
class MemoryOutbox implements OutboxSource {
  readonly rows: (OutboxEntry & { publishedAt: Date | null; attempts: number; setAsideAt: Date | null; setAsideReason: string | null })[] = [];
  reads = 0;
  readsRunning = 0;
  readsPeak = 0;
  readDelayMs = 0;

  add(routingKey: string, payload: unknown): string {
    const id = randomUUID();
    this.rows.push({ id, routingKey, payload, publishedAt: null, attempts: 0, setAsideAt: null, setAsideReason: null });
    return id;
  }
  async unpublished(limit: number): Promise<OutboxEntry[]> {
    this.reads += 1;
    this.readsRunning += 1;
    this.readsPeak = Math.max(this.readsPeak, this.readsRunning);
    if (this.readDelayMs) await new Promise((resolve) => setTimeout(resolve, this.readDelayMs));
    this.readsRunning -= 1;
    return this.pending().slice(0, limit).map(({ id, routingKey, payload }) => ({ id, routingKey, payload }));
  }
  async markPublished(ids: string[], at: Date): Promise<void> {
    for (const row of this.rows) if (ids.includes(row.id)) row.publishedAt = at;
  }
  async recordFailedAttempt(ids: string[]): Promise<void> {
    for (const row of this.rows) if (ids.includes(row.id)) row.attempts += 1;
  }
  async setAside(ids: string[], reason: string, at: Date): Promise<void> {
    for (const row of this.rows) {
      if (ids.includes(row.id)) Object.assign(row, { setAsideAt: at, setAsideReason: reason });
    }
  }
  /** Rows still to publish. */
  unpublishedCount(): number {
    return this.pending().length;
  }
  private pending() {
    return this.rows.filter((r) => !r.publishedAt && !r.setAsideAt);
  }
}

/** Keeps the lines logged at error level. */
function errorLog(): Logger & { errors: { message: string; meta?: object }[] } {
  const errors: { message: string; meta?: object }[] = [];
  return { errors, error: (message, meta) => errors.push({ message, meta }), warn() {}, info() {}, debug() {} };
}

/** A bus whose confirms the test releases by hand. */
class HeldBus implements Bus {
  readonly held: { messageId: string; confirm: () => void }[] = [];
  async publish(_routingKey: string, _payload: unknown, opts: PublishOptions = {}): Promise<void> {
    await new Promise<void>((resolve) => this.held.push({ messageId: opts.messageId ?? '', confirm: resolve }));
  }
  async subscribe(_opts: SubscribeOptions): Promise<Subscription> {
    return { cancel: async () => {} };
  }
  healthy(): boolean {
    return true;
  }
  async close(): Promise<void> {}
}

/** A bus whose publishes fail until the test says otherwise. */
class FailingBus implements Bus {
  failing = true;
  constructor(private readonly inner: Bus) {}
  async publish(routingKey: string, payload: unknown, opts?: PublishOptions): Promise<void> {
    if (this.failing) throw new Error('broker refused the message');
    await this.inner.publish(routingKey, payload, opts);
  }
  subscribe(opts: SubscribeOptions): Promise<Subscription> {
    return this.inner.subscribe(opts);
  }
  healthy(): boolean {
    return true;
  }
  async close(): Promise<void> {}
}

const check = () => ({ domain_id: randomUUID(), application_id: randomUUID(), reason: 'created' });
// The relay here runs on intervals of a few milliseconds: probe as often, wait 3 s at most unless a test says less.
const soon = { timeoutMs: 3_000, intervalMs: 5 };

describe('outbox relay', () => {
  let bus: InProcessBus;
  let outbox: MemoryOutbox;
  let relay: OutboxRelay | null = null;
  beforeEach(() => {
    bus = new InProcessBus({ retryDelayMs: 1 });
    outbox = new MemoryOutbox();
  });
  afterEach(async () => {
    await relay?.stop();
    relay = null;
    await bus.close();
  });

  it('publishes rows in order with the row id as messageId, then marks them published', async () => {
    const got: ReceivedMessage[] = [];
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], prefetch: 1, handler: async (m) => { got.push(m); } });
    const ids = [outbox.add(ROUTING_KEYS.domainCheckRequested, check()), outbox.add(ROUTING_KEYS.domainCheckRequested, check()), outbox.add(ROUTING_KEYS.domainCheckRequested, check())];
    relay = startOutboxRelay({ source: outbox, bus, intervalMs: 10_000 });
    await relay.drain();
    await bus.whenIdle();
    expect(got.map((m) => m.messageId)).toEqual(ids);
    expect(got.map((m) => m.payload)).toEqual(outbox.rows.map((r) => r.payload));
    expect(outbox.rows.every((r) => r.publishedAt instanceof Date)).toBe(true);
  });

  it('publishes right after kick() instead of waiting for the next poll', async () => {
    let handled = 0;
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async () => { handled += 1; } });
    relay = startOutboxRelay({ source: outbox, bus, intervalMs: 60_000 });
    await eventually('the start-up pass (it found nothing)', () => outbox.reads === 1, soon);
    outbox.add(ROUTING_KEYS.domainCheckRequested, check());
    relay.kick();
    await eventually('the kicked row handled within 1 s', () => handled === 1, { ...soon, timeoutMs: 1_000 });
    expect(outbox.unpublishedCount()).toBe(0);
  });

  it('polls on its own', async () => {
    let handled = 0;
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async () => { handled += 1; } });
    relay = startOutboxRelay({ source: outbox, bus, intervalMs: 20 });
    await eventually('a first pass', () => outbox.reads >= 1, soon);
    outbox.add(ROUTING_KEYS.domainCheckRequested, check());
    await eventually('the row handled by a poll', () => handled === 1, soon);
  });

  it('marks a row published only once the bus confirmed it', async () => {
    const held = new HeldBus();
    outbox.add(ROUTING_KEYS.domainCheckRequested, check());
    relay = startOutboxRelay({ source: outbox, bus: held, intervalMs: 10 });
    await eventually('the row held by the bus', () => held.held.length === 1, soon);
    await new Promise((resolve) => setTimeout(resolve, 50)); // deliberate: time for a wrong mark or a second pass, which must not come
    expect(outbox.unpublishedCount()).toBe(1);
    expect(outbox.reads).toBe(1); // no second pass while the first waits
    held.held[0]?.confirm();
    await eventually('the confirmed row marked published', () => outbox.unpublishedCount() === 0, soon);
    expect(held.held[0]?.messageId).toBe(outbox.rows[0]?.id);
  });

  it('keeps rows while publishing fails and publishes them once it works again', async () => {
    const failing = new FailingBus(bus);
    const ids = [outbox.add(ROUTING_KEYS.domainCheckRequested, check()), outbox.add(ROUTING_KEYS.domainCheckRequested, check())];
    relay = startOutboxRelay({ source: outbox, bus: failing, intervalMs: 5, maxBackoffMs: 20 });
    await eventually('two failed attempts at each row', () => outbox.rows.every((r) => r.attempts >= 2), soon);
    expect(outbox.unpublishedCount()).toBe(2);
    await expect(relay.drain()).rejects.toThrow(/broker refused/);

    const got: string[] = [];
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async (m) => { got.push(m.messageId); } });
    failing.failing = false;
    await eventually('every row published once the bus works', () => outbox.unpublishedCount() === 0, soon);
    await bus.whenIdle();
    expect(got.sort()).toEqual([...ids].sort());
  });

  it('never runs two passes at once, however it is asked', async () => {
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async () => {} });
    outbox.readDelayMs = 10;
    relay = startOutboxRelay({ source: outbox, bus, intervalMs: 1, batchSize: 2 });
    const drains: Promise<void>[] = [];
    for (let i = 0; i < 10; i += 1) {
      outbox.add(ROUTING_KEYS.domainCheckRequested, check());
      relay.kick();
      drains.push(relay.drain());
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await Promise.all(drains);
    expect(outbox.readsPeak).toBe(1);
    expect(outbox.unpublishedCount()).toBe(0);
  });

  it('sets aside a row the catalog refuses, logs and counts it once, and publishes the rows after it', async () => {
    let handled = 0;
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async () => { handled += 1; } });
    const refused = outbox.add(ROUTING_KEYS.domainCheckRequested, { domain_id: 'broken' });
    outbox.add(ROUTING_KEYS.domainCheckRequested, check());
    const logger = errorLog();
    const counted: number[] = [];
    relay = startOutboxRelay({ source: outbox, bus, intervalMs: 10_000, logger, onSetAside: (rows) => counted.push(rows) });
    await relay.drain();
    await relay.drain();
    await bus.whenIdle();
    expect(handled).toBe(1);
    expect(outbox.rows.map((r) => r.publishedAt !== null)).toEqual([false, true]);
    expect(outbox.rows[0]).toMatchObject({ setAsideAt: expect.any(Date), setAsideReason: expect.stringContaining('"application_id" is required') });
    expect(outbox.rows[1]?.setAsideAt).toBeNull();
    expect(counted).toEqual([1]);
    expect(logger.errors).toEqual([{ message: 'outbox row refused by the message catalog, set aside', meta: expect.objectContaining({ outbox_id: refused }) }]);
  });

  it('goes on at once after a full batch of refused rows', async () => {
    let handled = 0;
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async () => { handled += 1; } });
    for (let i = 0; i < 12; i += 1) outbox.add(ROUTING_KEYS.domainCheckRequested, { ...check(), reason: `reason ${i}` });
    outbox.add(ROUTING_KEYS.domainCheckRequested, check());
    let counted = 0;
    // Polling once a minute: only "a full batch, go again" gets the valid row out within the wait below.
    relay = startOutboxRelay({ source: outbox, bus, intervalMs: 60_000, batchSize: 5, onSetAside: (rows) => { counted += rows; } });
    await eventually('the valid row handled within 1 s', () => handled === 1, { ...soon, timeoutMs: 1_000 });
    expect(counted).toBe(12);
    expect(outbox.rows.filter((r) => r.setAsideAt).length).toBe(12);
    expect(outbox.unpublishedCount()).toBe(0);
  });

  it('stop() waits for the pass in progress and ends polling', async () => {
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: ['#'], handler: async () => {} });
    outbox.readDelayMs = 30;
    outbox.add(ROUTING_KEYS.domainCheckRequested, check());
    relay = startOutboxRelay({ source: outbox, bus, intervalMs: 5 });
    await eventually('a pass in progress', () => outbox.readsRunning === 1, soon);
    await relay.stop();
    expect(outbox.readsRunning).toBe(0);
    expect(outbox.unpublishedCount()).toBe(0);
    const reads = outbox.reads;
    await new Promise((resolve) => setTimeout(resolve, 40)); // deliberate: eight intervals in which no pass may start
    expect(outbox.reads).toBe(reads);
  });
});
