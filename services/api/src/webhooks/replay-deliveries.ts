import { AppError, isoTimestamp, validationError, WEBHOOK_REPLAY_SINCE_MAX } from '@cds/core';
import { pendingDelivery, type ApplicationRow, type Repositories, type WebhookDeliveryRow, type WebhookSubscriptionRow } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import { findOwnDelivery, findOwnSubscription } from './read-webhooks';
import { toDeliveryResource, type DeliveryResource } from './webhook.mapper';

/** A new pending delivery of the same event and payload, due now. */
function replayOf(source: WebhookDeliveryRow, now: Date): WebhookDeliveryRow {
  const { applicationId, subscriptionId, eventId, eventType, payload } = source;
  return pendingDelivery({ applicationId, subscriptionId, eventId, eventType, payload, replayOf: source.id }, now);
}

async function activeSubscription(r: Repositories, application: ApplicationRow, id: string): Promise<WebhookSubscriptionRow> {
  const subscription = await findOwnSubscription(r, application.id, id, true);
  if (subscription.status === 'revoked') {
    throw new AppError('invalid_status_transition', 'Deliveries of a revoked webhook subscription cannot be replayed.', { status: subscription.status });
  }
  return subscription;
}

export function replayDelivery(ctx: UseCaseContext, application: ApplicationRow, webhookId: string, deliveryId: string): Promise<DeliveryResource> {
  return ctx.store.transaction(async (r) => {
    const subscription = await activeSubscription(r, application, webhookId);
    const source = await findOwnDelivery(r, subscription, deliveryId);
    const replay = replayOf(source, ctx.now());
    await r.webhookDeliveries.insertMany([replay]);
    return toDeliveryResource(replay);
  });
}

export interface ReplayResult {
  since: string;
  replayed: number;
  delivery_ids: string[];
}

/** Queues again every delivery of the subscription created at or after `since` (earlier replays included), at most 1000. */
export function replayDeliveriesSince(ctx: UseCaseContext, application: ApplicationRow, webhookId: string, since: Date): Promise<ReplayResult> {
  return ctx.store.transaction(async (r) => {
    const subscription = await activeSubscription(r, application, webhookId);
    const matched = await r.webhookDeliveries.countSince(application.id, subscription.id, since);
    if (matched > WEBHOOK_REPLAY_SINCE_MAX) {
      throw new AppError(
        'validation_error',
        `${matched} deliveries were created since ${isoTimestamp(since)}; one call replays at most ${WEBHOOK_REPLAY_SINCE_MAX}. Choose a later since.`,
        {
          ...validationError([{ location: 'query', field: 'since', message: `matches ${matched} deliveries, more than ${WEBHOOK_REPLAY_SINCE_MAX}`, type: 'replay.too_many' }]).details,
          limit: WEBHOOK_REPLAY_SINCE_MAX,
          matched,
        },
      );
    }
    const now = ctx.now();
    const replays = (await r.webhookDeliveries.listSince(application.id, subscription.id, since, WEBHOOK_REPLAY_SINCE_MAX)).map((source) => replayOf(source, now));
    await r.webhookDeliveries.insertMany(replays);
    return { since: isoTimestamp(since), replayed: replays.length, delivery_ids: replays.map((d) => d.id) };
  });
}
