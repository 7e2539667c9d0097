// The webhook tables: idempotent fan-out inserts, leases that no two claimers
// share, attempts written only under their lease, secrets that still sign, and
// the migration's down and up on both databases.
import { randomUUID } from 'node:crypto';
import type { DataStore, WebhookDeliveryRow, WebhookSubscriptionRow } from '@cds/data';
import { anApplication, at, openMigratedStore, T0, type MigratedStore } from './data-fixtures';

const WEBHOOKS_MIGRATION = 'Webhooks1760000000200';

function aSubscription(applicationId: string, overrides: Partial<WebhookSubscriptionRow> = {}): WebhookSubscriptionRow {
  return {
    id: randomUUID(), applicationId, url: 'https://hooks.example.com/in', events: ['domain.ready', 'domain.deleted'],
    status: 'active', createdAt: T0, updatedAt: T0, revokedAt: null, ...overrides,
  };
}

function aSecret(subscriptionId: string, createdAt = T0, expiresAt: Date | null = null) {
  return { id: randomUUID(), subscriptionId, secretSealed: `sealed-${randomUUID()}`, createdAt, expiresAt };
}

function aDelivery(sub: WebhookSubscriptionRow, overrides: Partial<WebhookDeliveryRow> = {}): WebhookDeliveryRow {
  return {
    id: randomUUID(), applicationId: sub.applicationId, subscriptionId: sub.id, eventId: randomUUID(), eventType: 'domain.ready',
    payload: '{"id":"x"}', state: 'pending', attempts: 0, nextAttemptAt: T0, lastAttemptAt: null, lastStatusCode: null,
    lastError: null, createdAt: T0, deliveredAt: null, replayOf: null, leaseId: null, ...overrides,
  };
}

async function withSubscription(store: DataStore): Promise<WebhookSubscriptionRow> {
  const app = anApplication();
  const sub = aSubscription(app.id);
  await store.run((r) => r.applications.insert(app));
  await store.run((r) => r.webhookSubscriptions.insert(sub, aSecret(sub.id)));
  return sub;
}

describe('webhook repositories', () => {
  let ctx: MigratedStore;

  beforeEach(async () => {
    ctx = await openMigratedStore();
  });
  afterEach(() => ctx.close());

  it('stores subscriptions and lists them oldest first, revoked ones included, per application', async () => {
    const app = anApplication();
    const other = anApplication();
    await ctx.store.run((r) => r.applications.insert(app));
    await ctx.store.run((r) => r.applications.insert(other));
    const first = aSubscription(app.id, { createdAt: at(0) });
    const second = aSubscription(app.id, { createdAt: at(5), events: ['domain.recovered'] });
    await ctx.store.run((r) => r.webhookSubscriptions.insert(second, aSecret(second.id)));
    await ctx.store.run((r) => r.webhookSubscriptions.insert(first, aSecret(first.id)));
    await expect(ctx.store.run((r) => r.webhookSubscriptions.insert(aSubscription(other.id), aSecret(randomUUID())))).rejects.toMatchObject({
      message: expect.stringMatching(/foreign key/i),
    });
    await ctx.store.run((r) => r.webhookSubscriptions.update(app.id, first.id, { status: 'revoked', revokedAt: at(9), updatedAt: at(9) }));

    expect(await ctx.store.run((r) => r.webhookSubscriptions.list(app.id))).toEqual([
      { ...first, status: 'revoked', revokedAt: at(9), updatedAt: at(9) },
      second,
    ]);
    expect(await ctx.store.run((r) => r.webhookSubscriptions.countActive(app.id))).toBe(1);
    expect(await ctx.store.transaction((r) => r.webhookSubscriptions.activeForFanOut([app.id, other.id]))).toEqual([second]);
    expect(await ctx.store.run((r) => r.webhookSubscriptions.find(other.id, second.id))).toBeNull();
    // The insert with a secret of an unknown subscription rolled back entirely.
    expect(await ctx.store.run((r) => r.webhookSubscriptions.list(other.id))).toEqual([]);
  });

  it('keeps replaced secrets signing until their expiry, newest first', async () => {
    const sub = await withSubscription(ctx.store);
    const [original] = await ctx.store.run((r) => r.webhookSubscriptions.signingSecrets([sub.id], T0));
    const rotated = aSecret(sub.id, at(1000));
    await ctx.store.transaction(async (r) => {
      await r.webhookSubscriptions.expireCurrentSecrets(sub.id, at(60_000));
      await r.webhookSubscriptions.addSecret(rotated);
    });
    const signing = (now: Date) => ctx.store.run(async (r) => (await r.webhookSubscriptions.signingSecrets([sub.id], now)).map((s) => s.id));
    expect(await signing(at(2000))).toEqual([rotated.id, original?.id]);
    expect(await signing(at(60_000))).toEqual([rotated.id]);
    expect(await ctx.store.run((r) => r.webhookSubscriptions.signingSecrets([], T0))).toEqual([]);
  });

  it('inserts an event once per subscription however often it is fanned out, replays beside it', async () => {
    const sub = await withSubscription(ctx.store);
    const original = aDelivery(sub);
    expect(await ctx.store.run((r) => r.webhookDeliveries.insertMany([original]))).toEqual([original.id]);
    const again = aDelivery(sub, { eventId: original.eventId });
    expect(await ctx.store.run((r) => r.webhookDeliveries.insertMany([again]))).toEqual([]);
    const replay = aDelivery(sub, { eventId: original.eventId, replayOf: original.id, createdAt: at(10) });
    const replay2 = aDelivery(sub, { eventId: original.eventId, replayOf: original.id, createdAt: at(20) });
    expect(await ctx.store.run((r) => r.webhookDeliveries.insertMany([replay, replay2]))).toEqual([replay.id, replay2.id]);

    const many = Array.from({ length: 450 }, () => aDelivery(sub, { createdAt: at(30) }));
    expect(await ctx.store.run((r) => r.webhookDeliveries.insertMany(many))).toHaveLength(450);
    expect(await ctx.store.run((r) => r.webhookDeliveries.countSince(sub.applicationId, sub.id, at(10)))).toBe(452);
    expect((await ctx.store.run((r) => r.webhookDeliveries.listSince(sub.applicationId, sub.id, at(10), 2))).map((d) => d.id)).toEqual([replay.id, replay2.id]);

    const page = await ctx.store.run((r) => r.webhookDeliveries.list(sub.applicationId, sub.id, { limit: 2, offset: 450 }));
    expect(page.map((d) => d.id)).toEqual([replay2.id, replay.id]);
    expect(await ctx.store.run((r) => r.webhookDeliveries.find(sub.applicationId, sub.id, original.id))).toEqual(original);
    expect(await ctx.store.run((r) => r.webhookDeliveries.find(randomUUID(), sub.id, original.id))).toBeNull();
  });

  it('leases due deliveries to one claimer at a time, even from two stores at once', async () => {
    const sub = await withSubscription(ctx.store);
    const due = Array.from({ length: 40 }, (_, i) => aDelivery(sub, { nextAttemptAt: at(i) }));
    const later = aDelivery(sub, { nextAttemptAt: at(3_600_000) });
    await ctx.store.run((r) => r.webhookDeliveries.insertMany([...due, later]));
    const other = await ctx.openAnother();
    const now = at(1000);
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => {
        const leaseId = randomUUID();
        return (i % 2 ? other : ctx.store).run((r) => r.webhookDeliveryQueue.claimDue(now, 7, leaseId, at(61_000)));
      }),
    );
    const ids = claims.flat().map((d) => d.id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    for (const claim of claims) for (const d of claim) expect(d.nextAttemptAt).toEqual(at(61_000));
    expect(await ctx.store.run((r) => r.webhookDeliveryQueue.claimDue(now, 10, randomUUID(), at(61_000)))).toEqual([]);
    // Once the lease has run out (the claimer died), the delivery is due again.
    const [retaken] = await ctx.store.run((r) => r.webhookDeliveryQueue.claimDue(at(61_000), 1, randomUUID(), at(120_000)));
    expect(retaken?.nextAttemptAt).toEqual(at(120_000));
  });

  it('records an attempt only under its lease, and a revoked delivery stays abandoned', async () => {
    const sub = await withSubscription(ctx.store);
    const d = aDelivery(sub);
    await ctx.store.run((r) => r.webhookDeliveries.insertMany([d]));
    const lease = randomUUID();
    const [claimed] = await ctx.store.run((r) => r.webhookDeliveryQueue.claimDue(T0, 1, lease, at(30_000)));
    expect(claimed?.leaseId).toBe(lease);

    const attempt = (n: number, statusCode: number | null, error: string | null) => ({
      id: randomUUID(), deliveryId: d.id, attempt: n, startedAt: at(n * 100), durationMs: 12, statusCode, error,
    });
    const failed = { leaseId: lease, attempt: attempt(1, 500, 'receiver answered HTTP 500'), state: 'pending' as const, nextAttemptAt: at(5000), deliveredAt: null };
    expect(await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([{ ...failed, leaseId: randomUUID() }]))).toEqual([]);
    expect(await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([failed]))).toEqual([d.id]);
    expect(await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([failed]))).toEqual([]);
    expect(await ctx.store.run((r) => r.webhookDeliveries.find(sub.applicationId, sub.id, d.id))).toMatchObject({
      state: 'pending', attempts: 1, nextAttemptAt: at(5000), lastAttemptAt: at(100), lastStatusCode: 500,
      lastError: 'receiver answered HTTP 500', leaseId: null, deliveredAt: null,
    });

    const lease2 = randomUUID();
    await ctx.store.run((r) => r.webhookDeliveryQueue.claimDue(at(5000), 1, lease2, at(40_000)));
    expect(await ctx.store.run((r) => r.webhookDeliveries.abandonPending(sub.id, 'subscription revoked'))).toBe(1);
    const late = { leaseId: lease2, attempt: attempt(2, 200, null), state: 'delivered' as const, nextAttemptAt: null, deliveredAt: at(200) };
    expect(await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([late]))).toEqual([d.id]);
    expect(await ctx.store.run((r) => r.webhookDeliveries.find(sub.applicationId, sub.id, d.id))).toMatchObject({
      state: 'abandoned', attempts: 2, nextAttemptAt: null, deliveredAt: null, lastStatusCode: 200, lastError: 'subscription revoked',
    });
    expect((await ctx.store.run((r) => r.webhookDeliveries.attemptsOf(d.id))).map((a) => [a.attempt, a.statusCode])).toEqual([[1, 500], [2, 200]]);
  });

  it('delivers: state, delivered_at and no next attempt', async () => {
    const sub = await withSubscription(ctx.store);
    const d = aDelivery(sub);
    await ctx.store.run((r) => r.webhookDeliveries.insertMany([d]));
    const lease = randomUUID();
    await ctx.store.run((r) => r.webhookDeliveryQueue.claimDue(T0, 1, lease, at(30_000)));
    const attempt = { id: randomUUID(), deliveryId: d.id, attempt: 1, startedAt: at(1), durationMs: 3, statusCode: 204, error: null };
    await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([{ leaseId: lease, attempt, state: 'delivered', nextAttemptAt: null, deliveredAt: at(4) }]));
    expect(await ctx.store.run((r) => r.webhookDeliveries.find(sub.applicationId, sub.id, d.id))).toMatchObject({
      state: 'delivered', attempts: 1, nextAttemptAt: null, deliveredAt: at(4), lastStatusCode: 204,
    });
  });

  it('records a batch of outcomes in one call, each only under its own lease', async () => {
    const sub = await withSubscription(ctx.store);
    const rows = Array.from({ length: 6 }, () => aDelivery(sub));
    await ctx.store.run((r) => r.webhookDeliveries.insertMany(rows));
    const lease = randomUUID();
    await ctx.store.run((r) => r.webhookDeliveryQueue.claimDue(T0, 6, lease, at(30_000)));
    const outcome = (d: WebhookDeliveryRow, i: number) => {
      const delivered = i % 2 === 0;
      return {
        leaseId: i === 5 ? randomUUID() : lease, // the last one lost its lease
        attempt: { id: randomUUID(), deliveryId: d.id, attempt: 1, startedAt: at(i), durationMs: i, statusCode: delivered ? 200 : null, error: delivered ? null : `refused ${i}` },
        state: delivered ? ('delivered' as const) : ('pending' as const),
        nextAttemptAt: delivered ? null : at(10_000 + i),
        deliveredAt: delivered ? at(100 + i) : null,
      };
    };
    const written = await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts(rows.map(outcome)));
    expect(written.sort()).toEqual(rows.slice(0, 5).map((d) => d.id).sort());
    const stored = await Promise.all(rows.map((d) => ctx.store.run((r) => r.webhookDeliveries.find(sub.applicationId, sub.id, d.id))));
    stored.slice(0, 5).forEach((d, i) => {
      expect(d).toMatchObject(i % 2 === 0
        ? { state: 'delivered', attempts: 1, deliveredAt: at(100 + i), nextAttemptAt: null, lastStatusCode: 200, lastError: null, leaseId: null }
        : { state: 'pending', attempts: 1, deliveredAt: null, nextAttemptAt: at(10_000 + i), lastStatusCode: null, lastError: `refused ${i}`, leaseId: null });
    });
    expect(stored[5]).toMatchObject({ state: 'pending', attempts: 0, leaseId: lease, nextAttemptAt: at(30_000) });
    expect(await ctx.store.run((r) => r.webhookDeliveries.attemptsOf((rows[5] as WebhookDeliveryRow).id))).toEqual([]);
    expect(await ctx.store.run((r) => r.webhookDeliveries.attemptsOf((rows[1] as WebhookDeliveryRow).id))).toEqual([
      expect.objectContaining({ attempt: 1, startedAt: at(1), durationMs: 1, statusCode: null, error: 'refused 1' }),
    ]);
    expect(await ctx.store.run((r) => r.webhookDeliveryQueue.recordAttempts([]))).toEqual([]);
  });

  it('gives leases back only while they are still held', async () => {
    const sub = await withSubscription(ctx.store);
    const [a, b] = [aDelivery(sub), aDelivery(sub)];
    await ctx.store.run((r) => r.webhookDeliveries.insertMany([a, b]));
    const lease = randomUUID();
    await ctx.store.run((r) => r.webhookDeliveryQueue.claimDue(T0, 2, lease, at(60_000)));
    await ctx.store.run((r) => r.webhookDeliveryQueue.releaseLeases([{ deliveryId: a.id, leaseId: lease }, { deliveryId: b.id, leaseId: randomUUID() }], at(5)));
    expect(await ctx.store.run((r) => r.webhookDeliveries.find(sub.applicationId, sub.id, a.id))).toMatchObject({ leaseId: null, nextAttemptAt: at(5) });
    expect(await ctx.store.run((r) => r.webhookDeliveries.find(sub.applicationId, sub.id, b.id))).toMatchObject({ leaseId: lease, nextAttemptAt: at(60_000) });
    expect((await ctx.store.run((r) => r.webhookDeliveryQueue.claimDue(at(5), 5, randomUUID(), at(90_000)))).map((d) => d.id)).toEqual([a.id]);
  });

  it('reverts and re-applies the webhook migration', async () => {
    await withSubscription(ctx.store);
    // Later migrations (if any) are reverted first, down to this one.
    const reverted: string[] = [];
    while (!reverted.includes(WEBHOOKS_MIGRATION)) {
      const name = await ctx.store.revertLastMigration();
      if (name === null) throw new Error(`${WEBHOOKS_MIGRATION} was never applied`);
      reverted.push(name);
    }
    await expect(ctx.store.run((r) => r.webhookSubscriptions.list(randomUUID()))).rejects.toMatchObject({ message: expect.stringMatching(/webhook_subscriptions/) });
    expect(await ctx.store.pendingMigrations()).toEqual([...reverted].reverse());
    expect(await ctx.store.migrate()).toEqual([...reverted].reverse());
    await withSubscription(ctx.store);
  });
});
