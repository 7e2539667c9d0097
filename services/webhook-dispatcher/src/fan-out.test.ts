import { randomUUID } from 'node:crypto';
import type { EventEmittedPayload, EventType } from '@cds/core';
import type { WebhookSecretRow, WebhookSubscriptionRow } from '@cds/data';
import { sampleDomainResource } from '../../../test/support/domain-resource';
import { fakeStore } from '../../../test/support/fake-store';
import { fanOutEvents, type FanOutLease } from './fan-out';

const NOW = new Date('2025-06-01T10:00:00.000Z');
const LEASE_UNTIL = new Date('2025-06-01T10:00:20.000Z');
const lease = (room: number): FanOutLease => ({ leaseId: 'lease-1', leaseUntil: LEASE_UNTIL, room });

function subscription(applicationId: string, events: EventType[], status: WebhookSubscriptionRow['status'] = 'active'): WebhookSubscriptionRow {
  return { id: randomUUID(), applicationId, url: 'https://93.184.216.34/hook', events, status, createdAt: NOW, updatedAt: NOW, revokedAt: status === 'revoked' ? NOW : null };
}

const secretOf = (s: WebhookSubscriptionRow): WebhookSecretRow => ({ id: randomUUID(), subscriptionId: s.id, secretSealed: `sealed-${s.id}`, createdAt: NOW, expiresAt: null });

function event(applicationId: string, type: EventType): EventEmittedPayload {
  return { event_id: randomUUID().toUpperCase(), type, application_id: applicationId, created_at: '2025-06-01T09:59:59.123+00:00', data: { domain: sampleDomainResource() } };
}

describe('fanOutEvents', () => {
  const app = randomUUID();
  const other = randomUUID();
  const wants = subscription(app, ['domain.ready', 'domain.deleted']);
  const otherType = subscription(app, ['domain.deleted']);
  const revoked = subscription(app, ['domain.ready'], 'revoked');
  const otherApp = subscription(other, ['domain.ready']);
  const seed = () => fakeStore({ subscriptions: [wants, otherType, revoked, otherApp], secrets: [wants, otherType, revoked, otherApp].map(secretOf) });

  it('makes one pending delivery per active subscription of the event\'s application that wants its type, with the exact body', async () => {
    const store = seed();
    const ready = event(app, 'domain.ready');

    const result = await fanOutEvents(store, [ready], NOW, lease(0));

    expect(result.created).toEqual([1]);
    expect(store.tables.deliveries).toEqual([expect.objectContaining({
      applicationId: app, subscriptionId: wants.id, eventId: ready.event_id.toLowerCase(), eventType: 'domain.ready',
      state: 'pending', attempts: 0, nextAttemptAt: NOW, leaseId: null, replayOf: null,
    })]);
    expect(JSON.parse(store.tables.deliveries[0]?.payload as string)).toEqual({
      id: ready.event_id.toLowerCase(), type: 'domain.ready', created_at: ready.created_at, data: ready.data,
    });
    expect(store.units).toEqual(['transaction']);
  });

  it('creates nothing again for an event it already fanned out (a redelivered message)', async () => {
    const store = seed();
    const deleted = event(app, 'domain.deleted');
    expect((await fanOutEvents(store, [deleted], NOW, lease(0))).created).toEqual([2]);
    expect((await fanOutEvents(store, [deleted, deleted], NOW, lease(5))).created).toEqual([0, 0]);
    expect(store.tables.deliveries).toHaveLength(2);
  });

  it('leases up to the room it is given to the caller, with their subscriptions and secrets; the rest are due now for anyone', async () => {
    const store = seed();
    const [first, second] = [event(app, 'domain.deleted'), event(app, 'domain.ready')];

    const result = await fanOutEvents(store, [first, second], NOW, lease(2));

    expect(result.created).toEqual([2, 1]);
    const leased = store.tables.deliveries.filter((d) => d.leaseId === 'lease-1');
    expect(leased).toHaveLength(2);
    for (const d of leased) expect(d.nextAttemptAt).toEqual(LEASE_UNTIL);
    expect(store.tables.deliveries.filter((d) => d.leaseId === null).map((d) => d.nextAttemptAt)).toEqual([NOW]);
    expect(result.leased.deliveries.map((d) => d.id).sort()).toEqual(leased.map((d) => d.id).sort());
    expect(result.leased.subscriptions.map((s) => s.id).sort()).toEqual([...new Set(leased.map((d) => d.subscriptionId))].sort());
    expect(result.leased.secrets.map((s) => s.subscriptionId).sort()).toEqual(result.leased.subscriptions.map((s) => s.id).sort());
  });
});
