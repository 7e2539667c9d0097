import Joi from 'joi';

export const TRAFFIC_MAX_DAYS = 400;

export const trafficQuery = Joi.object<{ days: number }, true>({
  days: Joi.number().integer().min(1).max(TRAFFIC_MAX_DAYS).default(30).description('UTC days, today included: 1 to 400'),
});

const count = Joi.number().integer().min(0);

export const trafficReport = Joi.object({
  slug: Joi.string().required(),
  days: Joi.array().items(Joi.object({
    date: Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/).required().description('UTC day, YYYY-MM-DD'),
    requests: count.required(),
    response_bytes: count.required(),
  }).label('TrafficDay')).required().description('One entry per UTC day of the window, oldest first, zero days included'),
  totals: Joi.object({ requests: count.required(), response_bytes: count.required() }).required(),
}).label('TrafficReport');
