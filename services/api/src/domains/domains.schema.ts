import Joi from 'joi';
import { codePointString, DOMAIN_STATUSES, domainResourceSchema, type DomainStatus } from '@cds/core';
import type { MetadataValue } from '@cds/data';
import { limitQuery, offsetQuery, queryBoolean } from '../shared/common.schema';

const metadataValue = Joi.alternatives().try(
  codePointString(0, 512),
  Joi.number().unsafe(),
  Joi.boolean(),
  Joi.valid(null),
);

export interface CreateDomainBody {
  hostname: string;
  reference: string;
  metadata?: Record<string, MetadataValue>;
  redirect_to?: string | null;
}

// Hostname and reference are only type-checked here: their finer rules have
// their own error codes (invalid_hostname…, invalid_reference).
export const createDomainBody = Joi.object<CreateDomainBody, true>({
  // '' is allowed here so that it gets its own code, empty_hostname.
  hostname: Joi.string().allow('').required().description('Exact customer subdomain, e.g. shop.customer.com; an apex domain (customer.com) only where the deployment sets EDGE_ADDRESSES, else 422 apex_not_supported'),
  reference: Joi.string().allow('').required().description('Opaque workspace identifier, 1 to 255 characters'),
  metadata: Joi.object()
    .pattern(codePointString(1, 64), metadataValue)
    .max(32)
    .description('Up to 32 keys of 1-64 characters; values are strings of 0-512 characters (the empty string is a value), numbers, booleans or null'),
  redirect_to: Joi.string().allow(null).description(
    'Hostname of another live domain of the same application: once both are ready, the edge answers every request to this domain with a 308 to https://<redirect_to><path and query> instead of proxying it. Unknown, or not among the application\'s live domains: 422 validation_error (field redirect_to).',
  ),
}).label('DomainCreate');

export const idempotencyHeaders = Joi.object<{ 'idempotency-key'?: string }, true>({
  'idempotency-key': Joi.string().min(1).max(255).description('Replays the first answer for 24 hours'),
});

export interface ListDomainsQuery {
  reference?: string;
  status?: DomainStatus;
  include_deleted: boolean;
  limit: number;
  offset: number;
}

export const listDomainsQuery = Joi.object<ListDomainsQuery, true>({
  reference: Joi.string().max(255),
  status: Joi.string().valid(...DOMAIN_STATUSES),
  include_deleted: queryBoolean.default(false),
  limit: limitQuery,
  offset: offsetQuery,
});

export const getDomainQuery = Joi.object<{ include_deleted: boolean }, true>({ include_deleted: queryBoolean.default(false) });

export const domainPage = Joi.object({
  items: Joi.array().items(domainResourceSchema).required(),
  limit: Joi.number().integer().required(),
  offset: Joi.number().integer().required(),
}).label('DomainPage');
