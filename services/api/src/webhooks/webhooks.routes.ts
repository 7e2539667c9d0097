import { principalOf } from '@cds/http';
import { errorEnvelope } from '../shared/common.schema';
import type { UseCaseContext } from '../shared/context';
import { route, type Route } from '../shared/mount';
import { revokeWebhook, rotateWebhookSecret } from './change-webhook';
import { createWebhook } from './create-webhook';
import { listAttempts, listDeliveries, listWebhooks } from './read-webhooks';
import { replayDeliveriesSince, replayDelivery } from './replay-deliveries';
import type { ReplaySettings, WebhookSettings } from './webhook-settings';
import {
  attemptList,
  createWebhookBody,
  deliveryList,
  deliveryResource,
  listDeliveriesQuery,
  replayResult,
  replaySinceQuery,
  webhookList,
  webhookResource,
  webhookWithSecret,
} from './webhooks.schema';

const webhookId = { webhook_id: { description: 'Webhook subscription id', format: 'uuid' as const } };
const deliveryId = { delivery_id: { description: 'Delivery id', format: 'uuid' as const } };
const errors = (description: string) => ({ description, schema: errorEnvelope });
const common = {
  401: errors('Missing, unknown, revoked or expired credential'),
  403: errors('Application suspended'),
  429: errors('Rate limited; see Retry-After'),
};
const base = { tags: ['Webhooks'], security: 'ApplicationKey' as const };
/** Replays answer 429 for the pending limit too (DECISIONS §10). */
const replayLimited = errors(
  'rate_limited: the replay would raise the application\'s pending deliveries above WEBHOOK_PENDING_LIMIT (Retry-After: 60, details {limit, pending}), or too many requests',
);

/** The /v1/webhooks endpoints: subscriptions, their secrets and their deliveries. */
export function webhookRoutes(ctx: UseCaseContext, settings: WebhookSettings & ReplaySettings): Route[] {
  return [
    route({
      ...base, method: 'get', path: '/v1/webhooks', operationId: 'listWebhooks',
      summary: 'List webhook subscriptions, oldest first, revoked ones included',
      responses: { 200: { description: 'Subscriptions (never their secrets)', schema: webhookList }, ...common },
    }, async (req, res) => {
      res.status(200).json(await listWebhooks(ctx, principalOf(req).application));
    }),
    route({
      ...base, method: 'post', path: '/v1/webhooks', operationId: 'createWebhook',
      summary: 'Subscribe an https URL to event types', body: createWebhookBody, bodyRequired: true,
      responses: {
        201: { description: 'Created; `secret` is shown only here', schema: webhookWithSecret },
        409: errors('webhook_limit_reached'),
        422: errors('validation_error, or invalid_webhook_url with details.reason'),
        ...common,
      },
    }, async (req, res, { body }) => {
      res.status(201).json(await createWebhook(ctx, settings, principalOf(req).application, body));
    }),
    route({
      ...base, method: 'delete', path: '/v1/webhooks/{webhook_id}', operationId: 'revokeWebhook',
      summary: 'Revoke: deliveries stop, pending ones are abandoned, history stays readable', pathParams: webhookId,
      responses: { 200: { description: 'The revoked subscription', schema: webhookResource }, 404: errors('webhook_not_found'), ...common },
    }, async (req, res, { params }) => {
      res.status(200).json(await revokeWebhook(ctx, principalOf(req).application, params.webhook_id));
    }),
    route({
      ...base, method: 'post', path: '/v1/webhooks/{webhook_id}/rotate', operationId: 'rotateWebhookSecret',
      summary: 'Issue a new secret; earlier ones keep signing for 24 hours', pathParams: webhookId,
      responses: {
        200: { description: 'The subscription with its new `secret`, shown only here', schema: webhookWithSecret },
        404: errors('webhook_not_found'),
        409: errors('invalid_status_transition: the subscription is revoked'),
        ...common,
      },
    }, async (req, res, { params }) => {
      res.status(200).json(await rotateWebhookSecret(ctx, settings, principalOf(req).application, params.webhook_id));
    }),
    route({
      ...base, method: 'get', path: '/v1/webhooks/{webhook_id}/deliveries', operationId: 'listDeliveries',
      summary: 'List deliveries, newest first', pathParams: webhookId, query: listDeliveriesQuery,
      responses: {
        200: { description: 'Deliveries', schema: deliveryList },
        404: errors('webhook_not_found'),
        422: errors('Invalid query'),
        ...common,
      },
    }, async (req, res, { params, query }) => {
      res.status(200).json(await listDeliveries(ctx, principalOf(req).application, params.webhook_id, query));
    }),
    route({
      ...base, method: 'get', path: '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/attempts', operationId: 'listDeliveryAttempts',
      summary: 'List the attempts of a delivery, oldest first', pathParams: { ...webhookId, ...deliveryId },
      responses: {
        200: { description: 'Attempts: when each started, how long it took, the answer\'s status and why it failed', schema: attemptList },
        404: errors('webhook_not_found, or delivery_not_found (also for a delivery of another subscription)'),
        ...common,
      },
    }, async (req, res, { params }) => {
      res.status(200).json(await listAttempts(ctx, principalOf(req).application, params.webhook_id, params.delivery_id));
    }),
    route({
      ...base, method: 'post', path: '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay', operationId: 'replayDelivery',
      summary: 'Queue the same event again as a new delivery', pathParams: { ...webhookId, ...deliveryId },
      responses: {
        202: { description: 'The new delivery (`replay_of` names the one replayed)', schema: deliveryResource },
        404: errors('webhook_not_found or delivery_not_found'),
        409: errors('invalid_status_transition: the subscription is revoked'),
        ...common,
        429: replayLimited,
      },
    }, async (req, res, { params }) => {
      res.status(202).json(await replayDelivery(ctx, settings, principalOf(req).application, params.webhook_id, params.delivery_id));
    }),
    route({
      ...base, method: 'post', path: '/v1/webhooks/{webhook_id}/replay', operationId: 'replayDeliveriesSince',
      summary: 'Queue again every delivery created at or after `since` (at most 1000)', pathParams: webhookId, query: replaySinceQuery,
      responses: {
        202: { description: 'How many deliveries were queued, and their ids', schema: replayResult },
        404: errors('webhook_not_found'),
        409: errors('invalid_status_transition: the subscription is revoked'),
        422: errors('validation_error: since missing or invalid, or more than 1000 deliveries match'),
        ...common,
        429: replayLimited,
      },
    }, async (req, res, { params, query }) => {
      res.status(202).json(await replayDeliveriesSince(ctx, settings, principalOf(req).application, params.webhook_id, new Date(query.since)));
    }),
  ];
}
