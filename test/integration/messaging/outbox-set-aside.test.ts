// An outbox row the message catalog refuses never blocks the relay (DECISIONS
// §9): it is set aside, kept, marked and counted, and the rows after it go out.
// The real data store (TEST_DATABASE picks PostgreSQL or SQLite), the real
// relay and the in-process bus.
import { randomUUID } from 'node:crypto';
import { CHECK_REASONS, QUEUES, ROUTING_KEYS } from '@cds/core';
import { createDataStore, outboxSource, type DataStore } from '@cds/data';
import { InProcessBus, startOutboxRelay, type OutboxRelay } from '@cds/messaging';
import { meteredSetAside, METRIC } from '@cds/metrics';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { eventually } from '../../support/eventually';
import { sample } from '../metrics/scrape';

const REFUSED = 150;

describe('outbox relay and rows the catalog refuses', () => {
  let db: TestDatabase;
  let store: DataStore;
  let bus: InProcessBus;
  let relay: OutboxRelay | null = null;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createDataStore({ url: db.url });
    await store.migrate();
    bus = new InProcessBus();
  });
  afterAll(async () => {
    await relay?.stop();
    await bus?.close();
    await store?.close();
    await db?.drop();
  });

  it(`sets aside ${REFUSED} refused rows, keeps and counts them, and delivers the valid row written after them`, async () => {
    const applicationId = randomUUID();
    // Well typed, but not what the catalog takes (domain_id is no uuid): as a release with a bug could write it.
    await store.transaction(async (r) => {
      for (let i = 0; i < REFUSED; i += 1) {
        await r.outbox.add(ROUTING_KEYS.domainCheckRequested, { domain_id: `not-a-uuid-${i}`, application_id: applicationId, reason: CHECK_REASONS.created });
      }
    });
    const valid = await store.run((r) => r.outbox.add(ROUTING_KEYS.domainCheckRequested, { domain_id: randomUUID(), application_id: applicationId, reason: CHECK_REASONS.created }));

    const received: string[] = [];
    await bus.subscribe({ queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested], handler: async (m) => { received.push(m.messageId); } });
    const countSetAside = meteredSetAside();
    expect(await sample(METRIC.outboxSetAside)).toBe(0);
    // Polls once a minute: the valid row arrives in time only if the relay goes on at once past the refused ones.
    relay = startOutboxRelay({ source: outboxSource(store), bus, intervalMs: 60_000, onSetAside: countSetAside });
    await eventually('the valid row at the consumer', () => received.length === 1, { timeoutMs: 10_000 });
    await relay.drain();
    await relay.stop();
    await bus.whenIdle();
    expect(received).toEqual([valid.id]);

    const rows = await store.run((r) => r.outbox.all());
    expect(rows).toHaveLength(REFUSED + 1);
    const setAside = rows.filter((row) => row.id !== valid.id);
    for (const row of setAside) {
      expect(row).toMatchObject({ publishedAt: null, setAsideAt: expect.any(Date), setAsideReason: expect.stringContaining('"domain_id"') });
    }
    expect(rows.find((row) => row.id === valid.id)).toMatchObject({ publishedAt: expect.any(Date), setAsideAt: null, setAsideReason: null });
    expect(await sample(METRIC.outboxSetAside)).toBe(REFUSED);
    // Nothing is left to publish: the backlog (and its alert) ignores rows set aside.
    expect(await store.run((r) => r.outbox.backlog())).toEqual({ count: 0, oldestAt: null });
    expect(await store.run((r) => r.outbox.unpublished(10))).toEqual([]);
  });

  it('marks only rows still to publish, and leaves them out of unpublished and backlog', async () => {
    const payload = { domain_id: randomUUID(), application_id: randomUUID(), reason: CHECK_REASONS.recheck };
    const [published, refused, waiting] = [
      await store.run((r) => r.outbox.add(ROUTING_KEYS.domainCheckRequested, payload)),
      await store.run((r) => r.outbox.add(ROUTING_KEYS.domainCheckRequested, payload)),
      await store.run((r) => r.outbox.add(ROUTING_KEYS.domainCheckRequested, payload)),
    ];
    const at = new Date('2025-03-04T05:06:07.089Z');
    await store.run((r) => r.outbox.markPublished([published.id], at));
    await store.run((r) => r.outbox.setAside([published.id, refused.id], 'refused', at));
    await store.run((r) => r.outbox.setAside([refused.id], 'refused again', new Date(at.getTime() + 1)));
    await store.run((r) => r.outbox.setAside([], 'nothing', at));

    const byId = new Map((await store.run((r) => r.outbox.all())).map((row) => [row.id, row]));
    expect(byId.get(published.id)).toMatchObject({ publishedAt: at, setAsideAt: null, setAsideReason: null });
    expect(byId.get(refused.id)).toMatchObject({ publishedAt: null, setAsideAt: at, setAsideReason: 'refused' });
    expect((await store.run((r) => r.outbox.unpublished(10))).map((row) => row.id)).toEqual([waiting.id]);
    expect(await store.run((r) => r.outbox.backlog())).toEqual({ count: 1, oldestAt: waiting.createdAt });
  });
});
