import type { HttpMethod, RouteSpec } from '@cds/http';
import { errorEnvelope } from '../shared/common.schema';

// Endpoints of the contract that later versions serve: documented so the
// document covers every path of the interface, and marked as not served yet.
const PENDING: Array<[HttpMethod, string, string, 'ApplicationKey' | 'OperatorToken', string]> = [
];

export const NOT_YET_SERVED: RouteSpec[] = PENDING.map(([method, path, operationId, security, summary]) => ({
  method, path, operationId, security, summary,
  tags: [path.startsWith('/v1/') ? 'Webhooks' : 'Operator'],
  pathParams: Object.fromEntries([...path.matchAll(/\{([a-z_]+)\}/g)].flatMap(([, name]) => (name === undefined ? [] : [[name, { description: name }]]))),
  responses: {
    401: { description: 'Missing or wrong credential', schema: errorEnvelope },
    403: { description: 'Not permitted', schema: errorEnvelope },
    404: { description: 'Not served by this version yet', schema: errorEnvelope },
    429: { description: 'Rate limited', schema: errorEnvelope },
  },
  served: false,
}));
