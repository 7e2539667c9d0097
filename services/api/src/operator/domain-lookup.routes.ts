import type { UseCaseContext } from '../shared/context';
import { route, type Route } from '../shared/mount';
import { lookupDomain, type DomainLookupSettings } from './domain-lookup';
import { domainLookup, domainLookupQuery } from './domain-lookup.schema';
import { errorResponse, operatorCommonResponses as common, operatorOperation as op } from './operator-route-parts';

const hostnameParam = { hostname: { description: 'The hostname, normalized as at registration (case, one trailing dot, Unicode)' } };

export function domainLookupRoutes(ctx: UseCaseContext, settings: DomainLookupSettings): Route[] {
  return [
    route({ ...op, method: 'get', path: '/operator/v1/domains/{hostname}', operationId: 'lookupDomain',
      summary: 'Look a domain up by hostname, across applications: its checks, certificate and last check runs',
      pathParams: hostnameParam, query: domainLookupQuery,
      responses: { ...common,
        200: { description: 'The live domain of the hostname, or with include_deleted=true the one deleted last when none is live', schema: domainLookup },
        404: errorResponse('domain_not_found, or the operator API is off'),
        422: errorResponse('A name that is no hostname (the codes of registration: empty_hostname, wildcard_not_supported, ip_literal_not_supported, invalid_hostname, hostname_too_long, invalid_label), or validation_error for include_deleted') } },
    async (_req, res, { params, query }) => {
      res.status(200).json(await lookupDomain(ctx, settings, params.hostname, query.include_deleted));
    }),
  ];
}
