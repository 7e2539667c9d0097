import { domainResourceSchema } from '@cds/core';
import { principalOf, requestBody, requestParts, type RouteSpec } from '@cds/http';
import { errorEnvelope } from '../shared/common.schema';
import type { UseCaseContext } from '../shared/context';
import { route, type Route } from '../shared/mount';
import { deleteDomain } from './delete-domain';
import { createDomainBody, domainPage, getDomainQuery, idempotencyHeaders, listDomainsQuery } from './domains.schema';
import { withIdempotency } from './idempotency';
import { findDomain, getDomain, listDomains } from './read-domains';
import { recheckDomain } from './recheck-domain';
import { registerDomain } from './register-domain';

const domainId = { domain_id: { description: 'Domain id', format: 'uuid' as const } };
const errors = (description: string) => ({ description, schema: errorEnvelope });
const common = {
  401: errors('Missing, unknown, revoked or expired credential'),
  403: errors('Application suspended'),
  429: errors('Rate limited; see Retry-After'),
};

/**
 * POST /v1/domains. Its body is validated inside the idempotent create, not
 * before it: a refusal of the body is an answer of the create, stored and
 * replayed for its Idempotency-Key like any other 4xx.
 */
function createDomainRoute(ctx: UseCaseContext, prefix: string): Route {
  const spec = {
    method: 'post', path: `${prefix}/domains`, operationId: 'createDomain', tags: ['Domains'], security: 'ApplicationKey',
    summary: 'Register a customer hostname', headers: idempotencyHeaders, body: createDomainBody, bodyRequired: true,
    responses: {
      201: { description: 'Registered; publish the returned DNS records', schema: domainResourceSchema },
      200: { description: 'Idempotent replay (header Idempotent-Replayed: true)', schema: domainResourceSchema },
      409: errors('Hostname claimed, limit reached or idempotent twin in progress'),
      413: errors('Body over 64 KiB'),
      422: errors('Invalid body, hostname, reference or reused idempotency key'),
      ...common,
    },
  } satisfies RouteSpec;
  return {
    spec,
    handle: async (req, res) => {
      const { headers } = requestParts(spec, req);
      const { application } = principalOf(req);
      const outcome = await withIdempotency(ctx, application.id, headers['idempotency-key'], req.body, {
        create: (id) => registerDomain(ctx, application, requestBody(spec, req), id),
        find: (id) => findDomain(ctx, application, id, true),
      });
      if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(outcome.status).json(outcome.body);
    },
  };
}

/** The /v1/domains endpoints; `prefix` lets the legacy API mount the same routes at /domains. */
export function domainRoutes(ctx: UseCaseContext, prefix = '/v1'): Route[] {
  return [
    createDomainRoute(ctx, prefix),
    route({
      method: 'get', path: `${prefix}/domains`, operationId: 'listDomains', tags: ['Domains'], security: 'ApplicationKey',
      summary: "List the application's domains, oldest first", query: listDomainsQuery,
      responses: { 200: { description: 'A page of domains', schema: domainPage }, 422: errors('Invalid query'), ...common },
    }, async (req, res, { query }) => {
      const { reference, status, include_deleted: includeDeleted, limit, offset } = query;
      res.status(200).json(await listDomains(ctx, principalOf(req).application, { reference, status, includeDeleted, limit, offset }));
    }),
    route({
      method: 'get', path: `${prefix}/domains/{domain_id}`, operationId: 'getDomain', tags: ['Domains'], security: 'ApplicationKey',
      summary: 'Get a domain with its current checks', pathParams: domainId, query: getDomainQuery,
      responses: { 200: { description: 'The domain', schema: domainResourceSchema }, 404: errors('domain_not_found'), 422: errors('Invalid query'), ...common },
    }, async (req, res, { params, query }) => {
      res.status(200).json(await getDomain(ctx, principalOf(req).application, params.domain_id, query.include_deleted));
    }),
    route({
      method: 'delete', path: `${prefix}/domains/{domain_id}`, operationId: 'deleteDomain', tags: ['Domains'], security: 'ApplicationKey',
      summary: 'Delete a domain (its hostname is free at once)', pathParams: domainId,
      responses: { 202: { description: 'The domain, now deleting', schema: domainResourceSchema }, 404: errors('domain_not_found'), ...common },
    }, async (req, res, { params }) => {
      res.status(202).json(await deleteDomain(ctx, principalOf(req).application, params.domain_id));
    }),
    route({
      method: 'post', path: `${prefix}/domains/{domain_id}/checks`, operationId: 'recheckDomain', tags: ['Domains'], security: 'ApplicationKey',
      summary: 'Run all four checks again as soon as possible', pathParams: domainId,
      responses: {
        202: { description: 'The domain as it was before the recheck', schema: domainResourceSchema },
        404: errors('domain_not_found'),
        409: errors('invalid_status_transition: the domain is deleted'),
        ...common,
      },
    }, async (req, res, { params }) => {
      res.status(202).json(await recheckDomain(ctx, principalOf(req).application, params.domain_id));
    }),
  ];
}
