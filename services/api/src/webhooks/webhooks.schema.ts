import Joi from 'joi';
import { DELIVERY_STATES, EVENT_TYPES, nullableTimestampSchema, SUBSCRIPTION_STATUSES, timestampSchema, uuidSchema, type DeliveryState, type EventType } from '@cds/core';
import { limitQuery, offsetQuery } from '../shared/common.schema';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

const eventType = Joi.string().valid(...EVENT_TYPES);

export interface CreateWebhookBody {
  url: string;
  events: EventType[];
}

// The URL is only type-checked here: its finer rules have their own code, invalid_webhook_url.
export const createWebhookBody = Joi.object<CreateWebhookBody, true>({
  url: Joi.string().allow('').required().description('https URL whose every address is public'),
  events: Joi.array().items(eventType.required()).min(1).unique().required().description('Event types to receive, each once'),
}).label('WebhookCreate');

export const listDeliveriesQuery = Joi.object<{ state?: DeliveryState; limit: number; offset: number }, true>({
  state: Joi.string().valid(...DELIVERY_STATES),
  limit: limitQuery,
  offset: offsetQuery,
});

export const replaySinceQuery = Joi.object<{ since: string }, true>({
  since: Joi.string()
    .pattern(ISO_DATE_TIME, 'ISO 8601 date-time with Z or an offset')
    .custom((value: string, helpers) => (Number.isNaN(Date.parse(value)) ? helpers.error('any.invalid') : value))
    .required()
    .description('ISO 8601 date-time: every delivery created at or after it is queued again'),
});

export const webhookResource = Joi.object({
  id: uuidSchema.required(),
  url: Joi.string().required(),
  events: Joi.array().items(eventType).min(1).required(),
  status: Joi.string().valid(...SUBSCRIPTION_STATUSES).required(),
  created_at: timestampSchema.required(),
  updated_at: timestampSchema.required(),
  revoked_at: nullableTimestampSchema.required(),
}).label('WebhookSubscription');

export const webhookWithSecret = webhookResource
  .keys({ secret: Joi.string().pattern(/^whsec_[A-Za-z0-9_-]{43}$/).required().description('Shown only in this answer') })
  .label('WebhookSubscriptionWithSecret');

export const webhookList = Joi.array().items(webhookResource).label('WebhookSubscriptionList');

export const deliveryResource = Joi.object({
  id: uuidSchema.required(),
  subscription_id: uuidSchema.required(),
  event_id: uuidSchema.required(),
  event_type: eventType.required(),
  state: Joi.string().valid(...DELIVERY_STATES).required(),
  attempts: Joi.number().integer().min(0).required(),
  next_attempt_at: nullableTimestampSchema.required(),
  last_attempt_at: nullableTimestampSchema.required(),
  last_status_code: Joi.number().integer().allow(null).required(),
  last_error: Joi.string().allow(null).required(),
  created_at: timestampSchema.required(),
  delivered_at: nullableTimestampSchema.required(),
  replay_of: uuidSchema.allow(null).required(),
}).label('WebhookDelivery');

export const deliveryList = Joi.array().items(deliveryResource).label('WebhookDeliveryList');

export const attemptResource = Joi.object({
  attempt: Joi.number().integer().min(1).required().description('1 for the first attempt'),
  started_at: timestampSchema.required(),
  duration_ms: Joi.number().integer().min(0).required(),
  status_code: Joi.number().integer().allow(null).required().description('null when no answer came (timeout, connection refused, …)'),
  error: Joi.string().allow(null).required().description('Why the attempt failed; null when it delivered'),
}).label('WebhookAttempt');

export const attemptList = Joi.object({
  items: Joi.array().items(attemptResource).required().description('Oldest first'),
}).label('WebhookAttemptList');

export const replayResult = Joi.object({
  since: timestampSchema.required(),
  replayed: Joi.number().integer().min(0).required(),
  delivery_ids: Joi.array().items(uuidSchema).required(),
}).label('WebhookReplayResult');
