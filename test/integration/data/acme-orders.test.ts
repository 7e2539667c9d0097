// The saved ACME orders: stamped and aged by the database's clock, so that
// checkers whose own clocks disagree still agree on which order is current.
import type { AcmeOrderRow } from '@cds/data';
import { execSql } from '../../support/raw-sql';
import { openMigratedStore, type MigratedStore } from './data-fixtures';

const DAY_MS = 86_400_000;

describe('acme orders repository', () => {
  let ctx: MigratedStore;

  beforeAll(async () => {
    ctx = await openMigratedStore();
  });
  afterAll(() => ctx.close());

  const order = (hostname: string, over: Partial<Omit<AcmeOrderRow, 'savedAt'>> = {}): Omit<AcmeOrderRow, 'savedAt'> => ({
    hostname, orderUrl: `https://ca.example/order/${hostname}`, keySealed: 'v2.sealed', replaces: null, expiresAt: null, ...over,
  });
  const current = (hostname: string) => ctx.store.run((r) => r.acmeOrders.findCurrent(hostname, DAY_MS));
  /** Moves the order's saved_at back by `minutes`, as a day passing would. */
  const age = (hostname: string, minutes: number) =>
    execSql(ctx.db.url, [
      ctx.db.kind === 'postgres'
        ? `UPDATE acme_orders SET saved_at = saved_at - interval '${minutes} minutes' WHERE hostname = '${hostname}'`
        : `UPDATE acme_orders SET saved_at = strftime('%Y-%m-%d %H:%M:%f', saved_at, '-${minutes} minutes') WHERE hostname = '${hostname}'`,
    ]);

  it("saves an order stamped with the database's clock, replaces it, and deletes it", async () => {
    const before = await ctx.store.run((r) => r.diagnostics.now());
    await ctx.store.run((r) => r.acmeOrders.save(order('saved.example.com', { replaces: 'fingerprint', expiresAt: new Date('2099-01-02T03:04:05.678Z') })));
    const after = await ctx.store.run((r) => r.diagnostics.now());
    const saved = await current('saved.example.com');
    expect(saved).toMatchObject({
      hostname: 'saved.example.com', orderUrl: 'https://ca.example/order/saved.example.com', keySealed: 'v2.sealed', replaces: 'fingerprint',
      expiresAt: new Date('2099-01-02T03:04:05.678Z'),
    });
    expect(saved?.savedAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(saved?.savedAt.getTime()).toBeLessThanOrEqual(after.getTime());

    await ctx.store.run((r) => r.acmeOrders.save(order('saved.example.com', { orderUrl: 'https://ca.example/order/2' })));
    expect(await current('saved.example.com')).toMatchObject({ orderUrl: 'https://ca.example/order/2', replaces: null, expiresAt: null });

    await ctx.store.run((r) => r.acmeOrders.delete('saved.example.com'));
    expect(await current('saved.example.com')).toBeNull();
  });

  it("does not carry on an order a day old by the database's clock, and deletes it with the expired ones", async () => {
    await ctx.store.run(async (r) => {
      await r.acmeOrders.save(order('old.example.com'));
      await r.acmeOrders.save(order('almost.example.com'));
      await r.acmeOrders.save(order('expired.example.com', { expiresAt: new Date(Date.now() - 60_000) }));
      await r.acmeOrders.save(order('expiring.example.com', { expiresAt: new Date(Date.now() + 3600_000) }));
    });
    await age('old.example.com', 24 * 60 + 1);
    await age('almost.example.com', 24 * 60 - 1);

    expect(await current('old.example.com')).toBeNull();
    expect(await current('expired.example.com')).toBeNull();
    expect(await current('almost.example.com')).not.toBeNull();
    expect(await current('expiring.example.com')).not.toBeNull();

    expect(await ctx.store.run((r) => r.acmeOrders.deleteStale(DAY_MS))).toBe(2);
    expect(await ctx.store.run((r) => r.acmeOrders.deleteStale(DAY_MS))).toBe(0);
    // Deleted, not only hidden: a longer age no longer finds them either.
    expect(await ctx.store.run((r) => r.acmeOrders.findCurrent('old.example.com', 10 * DAY_MS))).toBeNull();
    expect(await ctx.store.run((r) => r.acmeOrders.findCurrent('almost.example.com', DAY_MS))).not.toBeNull();
  });
});
