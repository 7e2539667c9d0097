import Joi from 'joi';
import { nullableTimestampSchema, ORIGIN_STATUSES, timestampSchema, uuidSchema } from '@cds/core';

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** http or https, with a host; no credentials, query or fragment (the health path is appended to it). */
const originUrl = Joi.string().max(2048)
  .custom((value: string, helpers) => {
    if (!VISIBLE_ASCII.test(value)) return helpers.error('originUrl.characters');
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return helpers.error('originUrl.invalid');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return helpers.error('originUrl.scheme');
    if (url.username !== '' || url.password !== '' || /^[a-z]+:\/\/[^/]*@/i.test(value)) return helpers.error('originUrl.credentials');
    if (value.includes('#')) return helpers.error('originUrl.fragment');
    if (value.includes('?')) return helpers.error('originUrl.query');
    return value;
  })
  .messages({
    'originUrl.characters': '{{#label}} must be visible ASCII without spaces',
    'originUrl.invalid': '{{#label}} must be an absolute URL',
    'originUrl.scheme': '{{#label}} must use http or https',
    'originUrl.credentials': '{{#label}} must not contain credentials',
    'originUrl.fragment': '{{#label}} must not contain a fragment',
    'originUrl.query': '{{#label}} must not contain a query (put it in health_path)',
  })
  .description('http or https base URL of the origin; no credentials, query or fragment');

/** Starts with '/'; visible ASCII except '#'. */
const healthPath = Joi.string().max(1024).pattern(/^\/[\x21-\x22\x24-\x7e]*$/)
  .messages({ 'string.pattern.base': "{{#label}} must start with '/' and hold visible ASCII characters other than '#'" })
  .description('Path (and query) probed by verify and the origin check');

export interface CreateOriginBody {
  url: string;
  health_path: string;
}

export const createOriginBody = Joi.object<CreateOriginBody, true>({
  url: originUrl.required(),
  health_path: healthPath.default('/'),
}).label('OriginCreate');

export const verifyOriginBody = Joi.object<{ health_path?: string }, true>({
  health_path: healthPath.description('Replaces the stored health path before probing'),
}).label('OriginVerify');

export const originResource = Joi.object({
  id: uuidSchema.required(),
  url: Joi.string().required(),
  health_path: Joi.string().required(),
  status: Joi.string().valid(...ORIGIN_STATUSES).required(),
  last_verified_at: nullableTimestampSchema.required(),
  last_error: Joi.string().allow(null).required(),
  created_at: timestampSchema.required(),
  updated_at: timestampSchema.required(),
}).label('Origin');
