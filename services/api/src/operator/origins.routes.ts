import Joi from 'joi';
import type { UseCaseContext } from '../shared/context';
import { route, type Route } from '../shared/mount';
import { APPLICATIONS_PATH as P, errorResponse, operatorCommonResponses as common, operatorOperation as op, slugParam } from './operator-route-parts';
import { activateOrigin, deleteOrigin, listOrigins, registerOrigin, retireOrigin, verifyOrigin, type OriginProbeSettings } from './origins';
import { createOriginBody, originResource, verifyOriginBody } from './origins.schema';

const originParams = { ...slugParam, origin_id: { description: 'Origin id', format: 'uuid' as const } };
const ORIGIN = `${P}/{slug}/origins/{origin_id}`;

export function originRoutes(ctx: UseCaseContext, probe: OriginProbeSettings): Route[] {
  return [
    route({ ...op, method: 'get', path: `${P}/{slug}/origins`, operationId: 'listOrigins', summary: 'List origins', pathParams: slugParam,
      responses: { ...common, 200: { description: 'Origins, oldest first', schema: Joi.array().items(originResource) } } },
    async (_req, res, { params }) => { res.status(200).json(await listOrigins(ctx, params.slug)); }),
    route({ ...op, method: 'post', path: `${P}/{slug}/origins`, operationId: 'createOrigin', summary: 'Register an origin (pending verification)',
      pathParams: slugParam, body: createOriginBody, bodyRequired: true,
      responses: { ...common, 201: { description: 'Registered', schema: originResource } } },
    async (_req, res, { params, body }) => { res.status(201).json(await registerOrigin(ctx, params.slug, body)); }),
    route({ ...op, method: 'post', path: `${ORIGIN}/verify`, operationId: 'verifyOrigin',
      summary: "Probe GET <url><health_path> with the origin's own Host; any answer below 500 passes",
      pathParams: originParams, body: verifyOriginBody,
      responses: { ...common, 200: { description: 'Verified (an active origin stays active)', schema: originResource },
        422: errorResponse('origin_verification_failed (details.reason), or validation_error') } },
    async (_req, res, { params, body }) => {
      res.status(200).json(await verifyOrigin(ctx, probe, params.slug, params.origin_id, body?.health_path));
    }),
    route({ ...op, method: 'post', path: `${ORIGIN}/activate`, operationId: 'activateOrigin',
      summary: 'Make a verified origin the active one; the previously active origin goes back to verified', pathParams: originParams,
      responses: { ...common, 200: { description: 'Active', schema: originResource }, 409: errorResponse('invalid_status_transition') } },
    async (_req, res, { params }) => { res.status(200).json(await activateOrigin(ctx, params.slug, params.origin_id)); }),
    route({ ...op, method: 'post', path: `${ORIGIN}/retire`, operationId: 'retireOrigin', summary: 'Retire an origin (from any state)', pathParams: originParams,
      responses: { ...common, 200: { description: 'Retired', schema: originResource } } },
    async (_req, res, { params }) => { res.status(200).json(await retireOrigin(ctx, params.slug, params.origin_id)); }),
    route({ ...op, method: 'delete', path: ORIGIN, operationId: 'deleteOrigin', summary: 'Delete an origin that is not active', pathParams: originParams,
      responses: { ...common, 204: { description: 'Deleted' }, 409: errorResponse('origin_active') } },
    async (_req, res, { params }) => {
      await deleteOrigin(ctx, params.slug, params.origin_id);
      res.status(204).end();
    }),
  ];
}
