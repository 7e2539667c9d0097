import { ROUTING_KEYS } from '@cds/core';
import { openMigratedStore, type MigratedStore } from './data-fixtures';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('outbox repository', () => {
  let ctx: MigratedStore;

  beforeEach(async () => {
    ctx = await openMigratedStore();
  });
  afterEach(() => ctx.close());

  it('adds rows with a uuid, an increasing seq and the payload as JSON', async () => {
    const before = Date.now();
    // The table keeps any JSON: these payloads are cast past the message types to show it.
    const first = await ctx.store.run((r) => r.outbox.add(ROUTING_KEYS.domainCheckRequested, { domain_id: 'd1', n: 1, ok: true, none: null } as never));
    const second = await ctx.store.transaction((r) => r.outbox.add(ROUTING_KEYS.eventEmitted, ['a', 2] as never));
    expect(first).toMatchObject({ routingKey: ROUTING_KEYS.domainCheckRequested, payload: { domain_id: 'd1', n: 1, ok: true, none: null }, publishedAt: null, attempts: 0 });
    expect(first.id).toMatch(UUID);
    expect(first.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(second.seq).toBeGreaterThan(first.seq);
    expect(await ctx.store.run((r) => r.outbox.all())).toEqual([first, second]);
    expect(await ctx.store.run((r) => r.outbox.all(ROUTING_KEYS.eventEmitted))).toEqual([second]);
  });

  it('keeps insertion order for concurrent adds', async () => {
    const added = await Promise.all(Array.from({ length: 30 }, (_, i) => ctx.store.run((r) => r.outbox.add(ROUTING_KEYS.eventEmitted, { i } as never))));
    const all = await ctx.store.run((r) => r.outbox.all());
    expect(all.map((row) => row.id)).toEqual([...added].sort((a, b) => a.seq - b.seq).map((row) => row.id));
    expect(new Set(all.map((row) => row.seq)).size).toBe(30);
  });

  it('serves unpublished rows oldest first and records publishing and failures', async () => {
    const rows = [];
    for (let i = 0; i < 4; i++) rows.push(await ctx.store.run((r) => r.outbox.add(ROUTING_KEYS.eventEmitted, { i } as never)));
    const [a, b, c, d] = rows as [typeof rows[0], typeof rows[0], typeof rows[0], typeof rows[0]];
    expect(await ctx.store.run((r) => r.outbox.backlog())).toEqual({ count: 4, oldestAt: a.createdAt });
    expect((await ctx.store.run((r) => r.outbox.unpublished(2))).map((row) => row.id)).toEqual([a.id, b.id]);

    const publishedAt = new Date('2025-03-04T05:06:07.089Z');
    await ctx.store.run((r) => r.outbox.markPublished([a.id, c.id], publishedAt));
    await ctx.store.run((r) => r.outbox.markPublished([a.id], new Date(publishedAt.getTime() + 1)));
    await ctx.store.run((r) => r.outbox.markPublished([], publishedAt));
    await ctx.store.run((r) => r.outbox.recordFailedAttempt([b.id, d.id]));
    await ctx.store.run((r) => r.outbox.recordFailedAttempt([b.id]));
    await ctx.store.run((r) => r.outbox.recordFailedAttempt([]));

    expect(await ctx.store.run((r) => r.outbox.unpublished(10))).toEqual([{ ...b, attempts: 2 }, { ...d, attempts: 1 }]);
    expect(await ctx.store.run((r) => r.outbox.backlog())).toEqual({ count: 2, oldestAt: b.createdAt });
    expect((await ctx.store.run((r) => r.outbox.all())).find((row) => row.id === a.id)?.publishedAt).toEqual(publishedAt);

    await ctx.store.run((r) => r.outbox.markPublished([b.id, d.id], publishedAt));
    expect(await ctx.store.run((r) => r.outbox.backlog())).toEqual({ count: 0, oldestAt: null });
    expect(await ctx.store.run((r) => r.outbox.unpublished(10))).toEqual([]);
  });
});
