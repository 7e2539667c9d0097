import type { IdempotencyRow } from '@cds/data';
import { anApplication, at, openMigratedStore, type MigratedStore } from './data-fixtures';

describe('idempotency repository', () => {
  let ctx: MigratedStore;
  const app = anApplication();
  const DAY = 24 * 60 * 60 * 1000;

  const row = (key: string, createdAt = at(0), overrides: Partial<IdempotencyRow> = {}): IdempotencyRow => ({
    applicationId: app.id, key, requestHash: 'h1', state: 'in_progress', responseStatus: null, responseBody: null,
    createdAt, expiresAt: new Date(createdAt.getTime() + DAY), ...overrides,
  });

  beforeAll(async () => {
    ctx = await openMigratedStore();
    await ctx.store.run((r) => r.applications.insert(app));
  });
  afterAll(() => ctx.close());

  it('inserts once per key, completes, replays and deletes', async () => {
    expect(await ctx.store.run((r) => r.idempotency.tryInsert(row('k1')))).toBe(true);
    expect(await ctx.store.run((r) => r.idempotency.tryInsert(row('k1', at(DAY - 1), { requestHash: 'h2' })))).toBe(false);
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'k1'))).toEqual(row('k1'));

    expect(await ctx.store.run((r) => r.idempotency.complete(app.id, 'k1', at(0), 201, '{"id":"x"}'))).toBe(true);
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'k1'))).toEqual(row('k1', at(0), { state: 'completed', responseStatus: 201, responseBody: '{"id":"x"}' }));

    await ctx.store.run((r) => r.idempotency.delete(app.id, 'k1', at(0)));
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'k1'))).toBeNull();
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'never'))).toBeNull();
  });

  it('replaces an expired row for the same key', async () => {
    await ctx.store.run((r) => r.idempotency.tryInsert(row('k2')));
    await ctx.store.run((r) => r.idempotency.complete(app.id, 'k2', at(0), 422, '{}'));
    const fresh = row('k2', at(DAY), { requestHash: 'h3' });
    expect(await ctx.store.run((r) => r.idempotency.tryInsert(fresh))).toBe(true);
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'k2'))).toEqual(fresh);
  });

  it('takes over an in-progress claim by compare-and-swap: one of many concurrent takers wins, and only its claim is written', async () => {
    const stale = row('k4', at(0), { requestHash: 'dead' });
    expect(await ctx.store.run((r) => r.idempotency.tryInsert(stale))).toBe(true);
    const takers = Array.from({ length: 20 }, (_, i) => row('k4', at(61_000 + i), { requestHash: `h${i}` }));
    const results = await Promise.all(takers.map((taker) => ctx.store.run((r) => r.idempotency.takeOver(taker, stale.createdAt))));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = takers[results.indexOf(true)] as IdempotencyRow;
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'k4'))).toEqual(winner);

    // The writes of a claim that was taken over (the dead one's, a loser's) change nothing.
    const loser = takers.find((t) => t !== winner) as IdempotencyRow;
    expect(await ctx.store.run((r) => r.idempotency.takeOver(loser, stale.createdAt))).toBe(false);
    expect(await ctx.store.run((r) => r.idempotency.complete(app.id, 'k4', stale.createdAt, 409, '{"loser":true}'))).toBe(false);
    expect(await ctx.store.run((r) => r.idempotency.complete(app.id, 'k4', loser.createdAt, 409, '{"loser":true}'))).toBe(false);
    await ctx.store.run((r) => r.idempotency.delete(app.id, 'k4', loser.createdAt));
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'k4'))).toEqual(winner);

    expect(await ctx.store.run((r) => r.idempotency.complete(app.id, 'k4', winner.createdAt, 201, '{"winner":true}'))).toBe(true);
    // Completed: neither taken over nor completed again.
    expect(await ctx.store.run((r) => r.idempotency.takeOver(loser, winner.createdAt))).toBe(false);
    expect(await ctx.store.run((r) => r.idempotency.complete(app.id, 'k4', winner.createdAt, 422, '{}'))).toBe(false);
    expect(await ctx.store.run((r) => r.idempotency.find(app.id, 'k4'))).toEqual({ ...winner, state: 'completed', responseStatus: 201, responseBody: '{"winner":true}' });
  });

  it('lets exactly one of many concurrent inserts of a key win', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.store.run((r) => r.idempotency.tryInsert(row('k3', at(i), { requestHash: `h${i}` })))));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
