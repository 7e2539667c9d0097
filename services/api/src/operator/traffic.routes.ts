import type { UseCaseContext } from '../shared/context';
import { route, type Route } from '../shared/mount';
import { APPLICATIONS_PATH as P, errorResponse, operatorCommonResponses as common, operatorOperation as op, slugParam } from './operator-route-parts';
import { getTraffic } from './traffic';
import { trafficQuery, trafficReport } from './traffic.schema';

export function trafficRoutes(ctx: UseCaseContext): Route[] {
  return [
    route({ ...op, method: 'get', path: `${P}/{slug}/traffic`, operationId: 'getTraffic',
      summary: 'Requests forwarded to the origin and their response bytes, per UTC day', pathParams: slugParam, query: trafficQuery,
      responses: { ...common, 200: { description: 'Traffic of the window', schema: trafficReport }, 422: errorResponse('validation_error for days') } },
    async (_req, res, { params, query }) => { res.status(200).json(await getTraffic(ctx, params.slug, query.days)); }),
  ];
}
