import Joi from 'joi';

// Shared pieces of the request and response schemas (the resource pieces,
// timestamps and ids, are libs/core's, beside the Domain resource's schema).
export const queryBoolean = Joi.boolean().sensitive().description('`true` or `false`');
export const limitQuery = Joi.number().integer().min(1).max(200).default(50).description('Page size, 1 to 200');
export const offsetQuery = Joi.number().integer().min(0).default(0).description('Items to skip');

export const errorEnvelope = Joi.object({
  error: Joi.object({
    code: Joi.string().required(),
    message: Joi.string().required(),
    details: Joi.object().unknown(true).required(),
  }).required(),
}).label('Error');

/** The path-id format check: anything else is a not-found of that resource. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
