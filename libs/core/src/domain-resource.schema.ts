// The Domain resource's joi schema, typed by DomainResource: the API's answers
// and its OpenAPI document say what it is, and libs/messaging's catalog checks
// every event.emitted message's domain against it, so the three cannot drift.
// Each rule accepts everything toDomainResource can produce: a message refused
// here would never reach a webhook.
import Joi from 'joi';
import type { DnsRecord } from './dns-records';
import type { CheckResource, DomainResource } from './domain-resource';
import { CHECK_STATUSES, CHECK_TYPES, DOMAIN_STATUSES } from './domain-status';

export const timestampSchema = Joi.string().isoDate().description('ISO 8601 UTC timestamp');
export const nullableTimestampSchema = Joi.string().isoDate().allow(null);
export const uuidSchema = Joi.string().guid({ version: ['uuidv4', 'uuidv5', 'uuidv7'] });

/**
 * A string of `min` to `max` code points, as the contract counts length (not
 * UTF-16 units). The bounds go into the OpenAPI document as minLength and
 * maxLength, which count code points too; without `min`, joi's own rule holds
 * (no empty string) and the document says nothing of a minimum.
 */
export function codePointString(min: number | undefined, max: number): Joi.StringSchema {
  // joi refuses '' before any rule runs: a minimum of 0 must allow it.
  const string = min === 0 ? Joi.string().allow('') : Joi.string();
  return string.custom((value: string, helpers) => {
    const length = [...value].length;
    if (min !== undefined && length < min) return helpers.error('string.min', { limit: min });
    if (length > max) return helpers.error('string.max', { limit: max });
    return value;
  }).meta(min === undefined ? { maxLength: max } : { minLength: min, maxLength: max });
}

const dnsRecordSchema = Joi.object<DnsRecord, true>({
  name: Joi.string().required(),
  type: Joi.string().valid('TXT', 'CNAME', 'A', 'AAAA').required()
    .description('TXT: ownership. CNAME: routing of a subdomain to EDGE_TARGET. A and AAAA: routing of an apex domain (customer.com), one record per edge address, when the deployment sets EDGE_ADDRESSES; publish all of them'),
  value: Joi.string().required().description('The TXT text, the CNAME target, or the IPv4 (A) or IPv6 (AAAA) address'),
  purpose: Joi.string().valid('ownership', 'routing', 'certificate').required(),
  help: Joi.string().required(),
}).label('DnsRecord');

const checkSchema = Joi.object<CheckResource, true>({
  type: Joi.string().valid(...CHECK_TYPES).required(),
  status: Joi.string().valid(...CHECK_STATUSES).required(),
  error_code: Joi.string().allow(null).required(),
  // A check's message is whatever its probe said: never refused for being empty.
  message: Joi.string().allow('', null).required(),
  observed_at: nullableTimestampSchema.required(),
  next_check_at: nullableTimestampSchema.required(),
}).label('Check');

/** GET /v1/domains/{id}'s answer, and the `data.domain` of every domain event. */
export const domainResourceSchema = Joi.object<DomainResource, true>({
  id: uuidSchema.required(),
  hostname: Joi.string().required(),
  reference: codePointString(undefined, 255).required(),
  status: Joi.string().valid(...DOMAIN_STATUSES).required(),
  dns_records: Joi.array().items(dnsRecordSchema).required(),
  checks: Joi.array().items(checkSchema).length(CHECK_TYPES.length).required(),
  metadata: Joi.object().unknown(true).required(),
  redirect_to: Joi.string().allow(null).required().description('Hostname every request is redirected to (308) once both domains are ready; null when unset'),
  created_at: timestampSchema.required(),
  updated_at: timestampSchema.required(),
  deleted_at: nullableTimestampSchema.required(),
}).label('Domain');
