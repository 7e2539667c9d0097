import { AppError } from '@cds/core';
import type { ApplicationRow, Repositories, WebhookDeliveryFilter, WebhookDeliveryRow, WebhookSubscriptionRow } from '@cds/data';
import { UUID_PATTERN } from '../shared/common.schema';
import type { UseCaseContext } from '../shared/context';
import { toAttemptResource, toDeliveryResource, toWebhookResource, type AttemptList, type DeliveryResource, type WebhookResource } from './webhook.mapper';

function webhookNotFound(): AppError {
  return new AppError('webhook_not_found', 'No such webhook subscription in this application.');
}

/**
 * The caller's subscription or webhook_not_found (other applications' included).
 * `lock`: hold its row until the transaction ends (revoke, rotate and replays
 * serialize on it, and the dispatcher's fan-out waits for a revoke).
 */
export async function findOwnSubscription(r: Repositories, applicationId: string, id: string, lock = false): Promise<WebhookSubscriptionRow> {
  if (!UUID_PATTERN.test(id)) throw webhookNotFound();
  const subscriptionId = id.toLowerCase();
  if (lock) await r.webhookSubscriptions.lock(applicationId, subscriptionId);
  const subscription = await r.webhookSubscriptions.find(applicationId, subscriptionId);
  if (!subscription) throw webhookNotFound();
  return subscription;
}

export async function findOwnDelivery(r: Repositories, subscription: WebhookSubscriptionRow, id: string): Promise<WebhookDeliveryRow> {
  const notFound = () => new AppError('delivery_not_found', 'No such delivery for this webhook subscription.');
  if (!UUID_PATTERN.test(id)) throw notFound();
  const delivery = await r.webhookDeliveries.find(subscription.applicationId, subscription.id, id.toLowerCase());
  if (!delivery) throw notFound();
  return delivery;
}

export function listWebhooks(ctx: UseCaseContext, application: ApplicationRow): Promise<WebhookResource[]> {
  return ctx.store.run(async (r) => (await r.webhookSubscriptions.list(application.id)).map(toWebhookResource));
}

export function listDeliveries(ctx: UseCaseContext, application: ApplicationRow, webhookId: string, filter: WebhookDeliveryFilter): Promise<DeliveryResource[]> {
  return ctx.store.run(async (r) => {
    const subscription = await findOwnSubscription(r, application.id, webhookId);
    return (await r.webhookDeliveries.list(application.id, subscription.id, filter)).map(toDeliveryResource);
  });
}

/** A delivery's attempts, oldest first; delivery_not_found for another subscription's or another application's. */
export function listAttempts(ctx: UseCaseContext, application: ApplicationRow, webhookId: string, deliveryId: string): Promise<AttemptList> {
  return ctx.store.run(async (r) => {
    const subscription = await findOwnSubscription(r, application.id, webhookId);
    const delivery = await findOwnDelivery(r, subscription, deliveryId);
    return { items: (await r.webhookDeliveries.attemptsOf(delivery.id)).map(toAttemptResource) };
  });
}
