import Joi from 'joi';
import type { UseCaseContext } from '../shared/context';
import { pathParam, type Route } from '../shared/mount';
import { APPLICATIONS_PATH as P, errorResponse, operatorCommonResponses as common, operatorOperation as op, slugParam } from './operator-route-parts';
import { activateOrigin, deleteOrigin, listOrigins, registerOrigin, retireOrigin, verifyOrigin, type OriginProbeSettings } from './origins';
import { createOriginBody, originResource, verifyOriginBody } from './origins.schema';

const originParams = { ...slugParam, origin_id: { description: 'Origin id', format: 'uuid' as const } };
const ORIGIN = `${P}/{slug}/origins/{origin_id}`;

export function originRoutes(ctx: UseCaseContext, probe: OriginProbeSettings): Route[] {
  const ids = (req: Parameters<Route['handler']>[0]) => [pathParam(req, 'slug'), pathParam(req, 'origin_id')] as const;
  return [
    {
      spec: { ...op, method: 'get', path: `${P}/{slug}/origins`, operationId: 'listOrigins', summary: 'List origins', pathParams: slugParam,
        responses: { ...common, 200: { description: 'Origins, oldest first', schema: Joi.array().items(originResource) } } },
      handler: async (req, res) => { res.status(200).json(await listOrigins(ctx, pathParam(req, 'slug'))); },
    },
    {
      spec: { ...op, method: 'post', path: `${P}/{slug}/origins`, operationId: 'createOrigin', summary: 'Register an origin (pending verification)',
        pathParams: slugParam, body: createOriginBody, bodyRequired: true,
        responses: { ...common, 201: { description: 'Registered', schema: originResource } } },
      handler: async (req, res) => { res.status(201).json(await registerOrigin(ctx, pathParam(req, 'slug'), req.body)); },
    },
    {
      spec: { ...op, method: 'post', path: `${ORIGIN}/verify`, operationId: 'verifyOrigin',
        summary: "Probe GET <url><health_path> with the origin's own Host; any answer below 500 passes",
        pathParams: originParams, body: verifyOriginBody,
        responses: { ...common, 200: { description: 'Verified (an active origin stays active)', schema: originResource },
          422: errorResponse('origin_verification_failed (details.reason), or validation_error') } },
      handler: async (req, res) => {
        const [slug, id] = ids(req);
        res.status(200).json(await verifyOrigin(ctx, probe, slug, id, req.body));
      },
    },
    {
      spec: { ...op, method: 'post', path: `${ORIGIN}/activate`, operationId: 'activateOrigin',
        summary: 'Make a verified origin the active one; the previously active origin goes back to verified', pathParams: originParams,
        responses: { ...common, 200: { description: 'Active', schema: originResource }, 409: errorResponse('invalid_status_transition') } },
      handler: async (req, res) => { res.status(200).json(await activateOrigin(ctx, ...ids(req))); },
    },
    {
      spec: { ...op, method: 'post', path: `${ORIGIN}/retire`, operationId: 'retireOrigin', summary: 'Retire an origin (from any state)', pathParams: originParams,
        responses: { ...common, 200: { description: 'Retired', schema: originResource } } },
      handler: async (req, res) => { res.status(200).json(await retireOrigin(ctx, ...ids(req))); },
    },
    {
      spec: { ...op, method: 'delete', path: ORIGIN, operationId: 'deleteOrigin', summary: 'Delete an origin that is not active', pathParams: originParams,
        responses: { ...common, 204: { description: 'Deleted' }, 409: errorResponse('origin_active') } },
      handler: async (req, res) => {
        await deleteOrigin(ctx, ...ids(req));
        res.status(204).end();
      },
    },
  ];
}
