import type { UseCaseContext } from '../shared/context';
import { route, type Route } from '../shared/mount';
import { requestCertificateRenewal } from './certificate-renewal';
import { renewalRequestBody, renewalRequestResult } from './certificate-renewal.schema';
import { errorResponse, operatorCommonResponses as common, operatorOperation as op } from './operator-route-parts';

export function certificateRenewalRoutes(ctx: UseCaseContext): Route[] {
  return [
    route({ ...op, method: 'post', path: '/operator/v1/certificates/renew', operationId: 'renewCertificates',
      summary: 'Issue certificates again at the next check of their domains: one hostname\'s, or all (of one issuer, of one ACME directory), paced by the ACME order budget',
      body: renewalRequestBody, bodyRequired: true,
      responses: { ...common,
        202: { description: 'Marked; the old certificates serve until the new ones are stored', schema: renewalRequestResult },
        404: errorResponse('domain_not_found (no live domain has the hostname), or the operator API is off'),
        409: errorResponse('invalid_status_transition: the domain has no certificate yet'),
        422: errorResponse('validation_error for the body, or a name that is no hostname (the codes of registration)') } },
    async (_req, res, { body }) => { res.status(202).json(await requestCertificateRenewal(ctx, body)); }),
  ];
}
