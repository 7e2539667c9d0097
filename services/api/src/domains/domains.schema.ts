import Joi from 'joi';
import { CHECK_STATUSES, CHECK_TYPES, DOMAIN_STATUSES } from '@cds/core';
import { limitQuery, nullableTimestamp, offsetQuery, queryBoolean, timestamp, uuid } from '../shared/common.schema';

/**
 * Length in code points, as the contract counts it (not UTF-16 units). The
 * limits go into the OpenAPI document as minLength and maxLength, which count
 * code points too.
 */
function codePoints(min: number, max: number): Joi.StringSchema {
  // joi refuses '' before any rule runs: a minimum of 0 must allow it.
  const string = min === 0 ? Joi.string().allow('') : Joi.string();
  return string.custom((value: string, helpers) => {
    const length = [...value].length;
    if (length < min) return helpers.error('string.min', { limit: min });
    if (length > max) return helpers.error('string.max', { limit: max });
    return value;
  }).meta({ minLength: min, maxLength: max });
}

const metadataValue = Joi.alternatives().try(
  codePoints(0, 512),
  Joi.number().unsafe(),
  Joi.boolean(),
  Joi.valid(null),
);

// Hostname and reference are only type-checked here: their finer rules have
// their own error codes (invalid_hostname…, invalid_reference).
export const createDomainBody = Joi.object({
  // '' is allowed here so that it gets its own code, empty_hostname.
  hostname: Joi.string().allow('').required().description('Exact customer subdomain, e.g. shop.customer.com; an apex domain (customer.com) only where the deployment sets EDGE_ADDRESSES, else 422 apex_not_supported'),
  reference: Joi.string().allow('').required().description('Opaque workspace identifier, 1 to 255 characters'),
  metadata: Joi.object()
    .pattern(codePoints(1, 64), metadataValue)
    .max(32)
    .description('Up to 32 keys of 1-64 characters; values are strings of 0-512 characters (the empty string is a value), numbers, booleans or null'),
  redirect_to: Joi.string().allow(null).description(
    'Hostname of another live domain of the same application: once both are ready, the edge answers every request to this domain with a 308 to https://<redirect_to><path and query> instead of proxying it. Unknown, or not among the application\'s live domains: 422 validation_error (field redirect_to).',
  ),
}).label('DomainCreate');

export const idempotencyHeaders = Joi.object({
  'idempotency-key': Joi.string().min(1).max(255).description('Replays the first answer for 24 hours'),
});

export const listDomainsQuery = Joi.object({
  reference: Joi.string().max(255),
  status: Joi.string().valid(...DOMAIN_STATUSES),
  include_deleted: queryBoolean.default(false),
  limit: limitQuery,
  offset: offsetQuery,
});

export const getDomainQuery = Joi.object({ include_deleted: queryBoolean.default(false) });

const dnsRecord = Joi.object({
  name: Joi.string().required(),
  type: Joi.string().valid('TXT', 'CNAME', 'A', 'AAAA').required()
    .description('TXT: ownership. CNAME: routing of a subdomain to EDGE_TARGET. A and AAAA: routing of an apex domain (customer.com), one record per edge address, when the deployment sets EDGE_ADDRESSES; publish all of them'),
  value: Joi.string().required().description('The TXT text, the CNAME target, or the IPv4 (A) or IPv6 (AAAA) address'),
  purpose: Joi.string().valid('ownership', 'routing').required(),
  help: Joi.string().required(),
}).label('DnsRecord');

const check = Joi.object({
  type: Joi.string().valid(...CHECK_TYPES).required(),
  status: Joi.string().valid(...CHECK_STATUSES).required(),
  error_code: Joi.string().allow(null).required(),
  message: Joi.string().allow(null).required(),
  observed_at: nullableTimestamp.required(),
  next_check_at: nullableTimestamp.required(),
}).label('Check');

export const domainResource = Joi.object({
  id: uuid.required(),
  hostname: Joi.string().required(),
  reference: Joi.string().max(255).required(),
  status: Joi.string().valid(...DOMAIN_STATUSES).required(),
  dns_records: Joi.array().items(dnsRecord).required(),
  checks: Joi.array().items(check).length(4).required(),
  metadata: Joi.object().unknown(true).required(),
  redirect_to: Joi.string().allow(null).required().description('Hostname every request is redirected to (308) once both domains are ready; null when unset'),
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
  deleted_at: nullableTimestamp.required(),
}).label('Domain');

export const domainPage = Joi.object({
  items: Joi.array().items(domainResource).required(),
  limit: Joi.number().integer().required(),
  offset: Joi.number().integer().required(),
}).label('DomainPage');
