import { NOT_COOLING, type CoolingState } from '@cds/core';
import { pendingDelivery, type DataStore, type WebhookDeliveryRow, type WebhookSecretRow, type WebhookSubscriptionRow } from '@cds/data';
import type { EventEmittedPayload } from '@cds/messaging';

/** The webhook body: the event as the contract writes it (`created_at` as the message carries it, `+00:00`). */
function eventBody(event: EventEmittedPayload): string {
  return JSON.stringify({ id: event.event_id.toLowerCase(), type: event.type, created_at: event.created_at, data: { domain: event.data.domain } });
}

/** A lease to write on new deliveries, so that this dispatcher sends them at once (DeliveryWorker.adopt). */
export interface FanOutLease {
  leaseId: string;
  leaseUntil: Date;
  /** How many of the new deliveries may be leased (the worker's free room); the others are due now for any dispatcher. */
  room: number;
  /** How many of one subscription's, given its cooling state (DECISIONS §10); no cap of its own when absent. */
  roomOf?: (subscriptionId: string, state: CoolingState) => number;
  /** How many of one application's subscriptions' together; no cap of its own when absent. */
  roomOfApplication?: (applicationId: string) => number;
  /** The worker's outcome count when the lease was made (FairQueue.mark): the cooling states read here are at least that fresh. */
  readAt?: number;
}

export interface FanOutResult {
  /** Per event, how many deliveries it created. */
  created: number[];
  /** The new deliveries leased to `lease`, with their subscriptions, signing secrets and cooling states. */
  leased: { deliveries: WebhookDeliveryRow[]; subscriptions: WebhookSubscriptionRow[]; secrets: WebhookSecretRow[]; coolingStates: Map<string, CoolingState> };
}

/**
 * One pending delivery per active subscription of each event's application
 * that wants its type, all in one transaction. Idempotent: an event fanned
 * out before creates nothing again. Up to `lease.room` of the new deliveries
 * (`lease.roomOf` of one subscription's, `lease.roomOfApplication` of one
 * application's) are written leased to the caller, who sends them without
 * reading them back (it read their subscriptions, secrets and cooling states
 * here); the rest are due now.
 */
export async function fanOutEvents(store: DataStore, events: EventEmittedPayload[], now: Date, lease: FanOutLease): Promise<FanOutResult> {
  const applicationIds = [...new Set(events.map((e) => e.application_id.toLowerCase()))];
  return store.transaction(async (r) => {
    const subscriptions = await r.webhookSubscriptions.activeForFanOut(applicationIds);
    // Read only when something may be leased: a full worker leases nothing.
    const states = lease.room > 0 && lease.roomOf ? await r.webhookSubscriptions.coolingStates(subscriptions.map((s) => s.id)) : new Map<string, CoolingState>();
    let room = lease.room;
    const taken = new Map<string, number>();
    const takenOfApplication = new Map<string, number>();
    const mayLease = ({ id, applicationId }: WebhookSubscriptionRow): boolean => {
      if (room <= 0) return false;
      const count = taken.get(id) ?? 0;
      if (lease.roomOf && count >= lease.roomOf(id, states.get(id) ?? NOT_COOLING)) return false;
      const ofApplication = takenOfApplication.get(applicationId) ?? 0;
      if (lease.roomOfApplication && ofApplication >= lease.roomOfApplication(applicationId)) return false;
      taken.set(id, count + 1);
      takenOfApplication.set(applicationId, ofApplication + 1);
      room -= 1;
      return true;
    };
    const perEvent = events.map((event) => {
      const payload = eventBody(event);
      const eventId = event.event_id.toLowerCase();
      const applicationId = event.application_id.toLowerCase();
      return subscriptions
        .filter((s) => s.applicationId === applicationId && s.events.includes(event.type))
        .map((s): WebhookDeliveryRow => {
          const row = pendingDelivery({ applicationId: s.applicationId, subscriptionId: s.id, eventId, eventType: event.type, payload, replayOf: null }, now);
          return mayLease(s) ? { ...row, leaseId: lease.leaseId, nextAttemptAt: lease.leaseUntil } : row;
        });
    });
    const inserted = new Set(await r.webhookDeliveries.insertMany(perEvent.flat()));
    const deliveries = perEvent.flat().filter((row) => row.leaseId !== null && inserted.has(row.id));
    const leasedSubscriptions = [...new Set(deliveries.map((d) => d.subscriptionId))];
    return {
      created: perEvent.map((rows) => rows.filter((row) => inserted.has(row.id)).length),
      leased: {
        deliveries,
        subscriptions: subscriptions.filter((s) => leasedSubscriptions.includes(s.id)),
        secrets: await r.webhookSubscriptions.signingSecrets(leasedSubscriptions, now),
        coolingStates: new Map(leasedSubscriptions.map((id) => [id, states.get(id) ?? NOT_COOLING])),
      },
    };
  });
}
