import { randomUUID } from 'node:crypto';
import { AppError, encryptSecret, generateWebhookSecret, SEAL_PURPOSES } from '@cds/core';
import type { ApplicationRow, WebhookSubscriptionRow } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import { checkWebhookUrl } from './webhook-url';
import { toWebhookResource, type WebhookResource } from './webhook.mapper';
import type { CreateWebhookBody } from './webhooks.schema';
import type { WebhookSettings } from './webhook-settings';

export async function createWebhook(
  ctx: UseCaseContext,
  settings: WebhookSettings,
  application: ApplicationRow,
  input: CreateWebhookBody,
): Promise<WebhookResource & { secret: string }> {
  // Resolved before the transaction: DNS may take a while and holds no lock.
  const url = await checkWebhookUrl(input.url, settings);
  const secret = generateWebhookSecret();
  const now = ctx.now();
  const subscription: WebhookSubscriptionRow = {
    id: randomUUID(),
    applicationId: application.id,
    url,
    events: input.events,
    status: 'active',
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
  };
  await ctx.store.transaction(async (r) => {
    // Concurrent creates of one application queue here, so the count cannot pass the limit.
    await r.applications.lock(application.id);
    const active = await r.webhookSubscriptions.countActive(application.id);
    const limit = application.limits.webhook_subscriptions;
    if (active >= limit) {
      throw new AppError('webhook_limit_reached', `The application has reached its limit of ${limit} active webhook subscriptions.`, { limit, active });
    }
    const secretId = randomUUID();
    const sealed = encryptSecret(secret, settings.encryptionKey, { purpose: SEAL_PURPOSES.webhookSecret, id: secretId });
    await r.webhookSubscriptions.insert(subscription, { id: secretId, subscriptionId: subscription.id, secretSealed: sealed, createdAt: now, expiresAt: null });
  });
  return { ...toWebhookResource(subscription), secret };
}
