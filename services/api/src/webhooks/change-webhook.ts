import { randomUUID } from 'node:crypto';
import { AppError, encryptSecret, generateWebhookSecret, REVOKED_LAST_ERROR, SEAL_PURPOSES, WEBHOOK_SECRET_OVERLAP_MS } from '@cds/core';
import type { ApplicationRow } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import { findOwnSubscription } from './read-webhooks';
import { toWebhookResource, type WebhookResource } from './webhook.mapper';
import type { WebhookSettings } from './webhook-settings';

/** Revokes: no more deliveries, pending ones abandoned, history kept. Repeating it changes nothing. */
export function revokeWebhook(ctx: UseCaseContext, application: ApplicationRow, id: string): Promise<WebhookResource> {
  return ctx.store.transaction(async (r) => {
    const subscription = await findOwnSubscription(r, application.id, id, true);
    if (subscription.status === 'revoked') return toWebhookResource(subscription);
    const now = ctx.now();
    const patch = { status: 'revoked', revokedAt: now, updatedAt: now } as const;
    await r.webhookSubscriptions.update(application.id, subscription.id, patch);
    await r.webhookDeliveries.abandonPending(subscription.id, REVOKED_LAST_ERROR);
    return toWebhookResource({ ...subscription, ...patch });
  });
}

/**
 * Issues a new secret. Every secret still current keeps signing for 24 hours
 * after this rotation; secrets replaced earlier keep their own expiry.
 */
export function rotateWebhookSecret(
  ctx: UseCaseContext,
  settings: WebhookSettings,
  application: ApplicationRow,
  id: string,
): Promise<WebhookResource & { secret: string }> {
  return ctx.store.transaction(async (r) => {
    const subscription = await findOwnSubscription(r, application.id, id, true);
    if (subscription.status === 'revoked') {
      throw new AppError('invalid_status_transition', 'A revoked webhook subscription cannot be rotated.', { status: subscription.status });
    }
    const now = ctx.now();
    const secret = generateWebhookSecret();
    await r.webhookSubscriptions.expireCurrentSecrets(subscription.id, new Date(now.getTime() + WEBHOOK_SECRET_OVERLAP_MS));
    const secretId = randomUUID();
    await r.webhookSubscriptions.addSecret({
      id: secretId, subscriptionId: subscription.id, secretSealed: encryptSecret(secret, settings.encryptionKey, { purpose: SEAL_PURPOSES.webhookSecret, id: secretId }), createdAt: now, expiresAt: null,
    });
    await r.webhookSubscriptions.update(application.id, subscription.id, { updatedAt: now });
    return { ...toWebhookResource({ ...subscription, updatedAt: now }), secret };
  });
}
