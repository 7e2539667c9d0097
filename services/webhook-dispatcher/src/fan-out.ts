import { pendingDelivery, type DataStore, type WebhookDeliveryRow } from '@cds/data';
import type { EventEmittedPayload } from '@cds/messaging';

/** The webhook body: the event as the contract writes it (`created_at` as the message carries it, `+00:00`). */
function eventBody(event: EventEmittedPayload): string {
  return JSON.stringify({ id: event.event_id.toLowerCase(), type: event.type, created_at: event.created_at, data: { domain: event.data.domain } });
}

/**
 * One pending delivery, due now, per active subscription of each event's
 * application that wants its type, all in one transaction. Idempotent: an
 * event fanned out before creates nothing again. Returns, per event, how many
 * deliveries it created.
 */
export async function fanOutEvents(store: DataStore, events: EventEmittedPayload[], now: Date): Promise<number[]> {
  const applicationIds = [...new Set(events.map((e) => e.application_id.toLowerCase()))];
  return store.transaction(async (r) => {
    const subscriptions = await r.webhookSubscriptions.activeForFanOut(applicationIds);
    const perEvent = events.map((event) => {
      const payload = eventBody(event);
      const eventId = event.event_id.toLowerCase();
      const applicationId = event.application_id.toLowerCase();
      return subscriptions
        .filter((s) => s.applicationId === applicationId && s.events.includes(event.type))
        .map((s): WebhookDeliveryRow => pendingDelivery({ applicationId: s.applicationId, subscriptionId: s.id, eventId, eventType: event.type, payload, replayOf: null }, now));
    });
    const inserted = new Set(await r.webhookDeliveries.insertMany(perEvent.flat()));
    return perEvent.map((rows) => rows.filter((row) => inserted.has(row.id)).length);
  });
}
