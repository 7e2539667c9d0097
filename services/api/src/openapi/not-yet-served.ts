import type { HttpMethod, RouteSpec } from '@cds/http';
import { errorEnvelope } from '../shared/common.schema';

// Endpoints of the contract that later versions serve: documented so the
// document covers every path of the interface, and marked as not served yet.
const PENDING: Array<[HttpMethod, string, string, 'ApplicationKey' | 'OperatorToken', string]> = [
  ['get', '/v1/webhooks', 'listWebhooks', 'ApplicationKey', 'List webhook subscriptions'],
  ['post', '/v1/webhooks', 'createWebhook', 'ApplicationKey', 'Create a webhook subscription'],
  ['delete', '/v1/webhooks/{webhook_id}', 'revokeWebhook', 'ApplicationKey', 'Revoke a webhook subscription'],
  ['post', '/v1/webhooks/{webhook_id}/rotate', 'rotateWebhookSecret', 'ApplicationKey', 'Rotate the signing secret'],
  ['get', '/v1/webhooks/{webhook_id}/deliveries', 'listDeliveries', 'ApplicationKey', 'List deliveries'],
  ['post', '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay', 'replayDelivery', 'ApplicationKey', 'Replay one delivery'],
  ['post', '/v1/webhooks/{webhook_id}/replay', 'replayDeliveriesSince', 'ApplicationKey', 'Replay every delivery since a time'],
  ['get', '/operator/v1/applications/{slug}/traffic', 'getTraffic', 'OperatorToken', 'Proxied requests and bytes per day'],
  ['get', '/operator/v1/applications/{slug}/origins', 'listOrigins', 'OperatorToken', 'List origins'],
  ['post', '/operator/v1/applications/{slug}/origins', 'createOrigin', 'OperatorToken', 'Register an origin'],
  ['post', '/operator/v1/applications/{slug}/origins/{origin_id}/verify', 'verifyOrigin', 'OperatorToken', 'Verify an origin'],
  ['post', '/operator/v1/applications/{slug}/origins/{origin_id}/activate', 'activateOrigin', 'OperatorToken', 'Activate an origin'],
  ['post', '/operator/v1/applications/{slug}/origins/{origin_id}/retire', 'retireOrigin', 'OperatorToken', 'Retire an origin'],
  ['delete', '/operator/v1/applications/{slug}/origins/{origin_id}', 'deleteOrigin', 'OperatorToken', 'Delete an origin'],
  ['get', '/operator/v1/applications/{slug}/assertion-keys', 'listAssertionKeys', 'OperatorToken', 'List assertion keys'],
  ['post', '/operator/v1/applications/{slug}/assertion-keys', 'issueAssertionKey', 'OperatorToken', 'Issue the next assertion key'],
  ['post', '/operator/v1/applications/{slug}/assertion-keys/{key_id}/revoke', 'revokeAssertionKey', 'OperatorToken', 'Revoke an assertion key'],
  ['put', '/operator/v1/token', 'replaceOperatorToken', 'OperatorToken', 'Replace the operator token'],
  ['get', '/operator/v1/backup', 'backup', 'OperatorToken', 'Stream a database dump'],
  ['get', '/operator/v1/doctor', 'doctor', 'OperatorToken', 'Diagnostics'],
];

export const NOT_YET_SERVED: RouteSpec[] = PENDING.map(([method, path, operationId, security, summary]) => ({
  method, path, operationId, security, summary,
  tags: [path.startsWith('/v1/') ? 'Webhooks' : 'Operator'],
  pathParams: Object.fromEntries([...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => [m[1] as string, { description: m[1] as string }])),
  responses: {
    401: { description: 'Missing or wrong credential', schema: errorEnvelope },
    403: { description: 'Not permitted', schema: errorEnvelope },
    404: { description: 'Not served by this version yet', schema: errorEnvelope },
    429: { description: 'Rate limited', schema: errorEnvelope },
  },
  served: false,
}));
