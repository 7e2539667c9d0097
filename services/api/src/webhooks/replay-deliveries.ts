// Replays (DECISIONS §3) within the pending limit (§10). The limit is checked
// atomically: each replay locks its application's row first (PostgreSQL; on
// SQLite units of work run one at a time), then counts the pending deliveries
// and inserts its own in the same transaction, so of two replays running at
// once the second counts after the first committed and both cannot pass.
// Deliveries of new events (the dispatcher's fan-out) take no such lock: they
// are always created, and count against the next replay.
import {
  AppError,
  exceedsPendingLimit,
  isoTimestamp,
  rateLimited,
  validationError,
  WEBHOOK_PENDING_RETRY_AFTER_SECONDS,
  WEBHOOK_REPLAY_SINCE_MAX,
} from '@cds/core';
import { pendingDelivery, type ApplicationRow, type Repositories, type WebhookDeliveryRow, type WebhookSubscriptionRow } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import { findOwnDelivery, findOwnSubscription } from './read-webhooks';
import type { ReplaySettings } from './webhook-settings';
import { toDeliveryResource, type DeliveryResource } from './webhook.mapper';

/** A new pending delivery of the same event and payload, due now. */
function replayOf(source: WebhookDeliveryRow, now: Date): WebhookDeliveryRow {
  const { applicationId, subscriptionId, eventId, eventType, payload } = source;
  return pendingDelivery({ applicationId, subscriptionId, eventId, eventType, payload, replayOf: source.id }, now);
}

/**
 * The caller's active subscription, locked, with the application's row locked
 * before it (the order creating a subscription takes too).
 */
async function activeSubscription(r: Repositories, application: ApplicationRow, id: string): Promise<WebhookSubscriptionRow> {
  await r.applications.lock(application.id);
  const subscription = await findOwnSubscription(r, application.id, id, true);
  if (subscription.status === 'revoked') {
    throw new AppError('invalid_status_transition', 'Deliveries of a revoked webhook subscription cannot be replayed.', { status: subscription.status });
  }
  return subscription;
}

/** 429 rate_limited when `adding` more would raise the application's pending deliveries above the limit. */
async function admitReplays(r: Repositories, settings: ReplaySettings, applicationId: string, adding: number): Promise<void> {
  const pending = await r.webhookDeliveries.countPending(applicationId);
  if (!exceedsPendingLimit(pending, adding, settings.pendingLimit)) return;
  throw rateLimited(
    WEBHOOK_PENDING_RETRY_AFTER_SECONDS,
    `This application has ${pending} webhook deliveries pending; replaying ${adding} more would go above the limit of ${settings.pendingLimit}. Try again once some have been delivered.`,
    { limit: settings.pendingLimit, pending },
  );
}

export function replayDelivery(
  ctx: UseCaseContext,
  settings: ReplaySettings,
  application: ApplicationRow,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryResource> {
  return ctx.store.transaction(async (r) => {
    const subscription = await activeSubscription(r, application, webhookId);
    const source = await findOwnDelivery(r, subscription, deliveryId);
    await admitReplays(r, settings, application.id, 1);
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
export function replayDeliveriesSince(ctx: UseCaseContext, settings: ReplaySettings, application: ApplicationRow, webhookId: string, since: Date): Promise<ReplayResult> {
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
    await admitReplays(r, settings, application.id, matched);
    const now = ctx.now();
    const replays = (await r.webhookDeliveries.listSince(application.id, subscription.id, since, WEBHOOK_REPLAY_SINCE_MAX)).map((source) => replayOf(source, now));
    await r.webhookDeliveries.insertMany(replays);
    return { since: isoTimestamp(since), replayed: replays.length, delivery_ids: replays.map((d) => d.id) };
  });
}
