import type { UseCaseContext } from '../shared/context';
import { route, type Route } from '../shared/mount';
import { issueAssertionKey, listAssertionKeys, revokeAssertionKey, type AssertionKeySettings } from './assertion-keys';
import { assertionKeyList, assertionKeyResource, issueAssertionKeyBody, issuedAssertionKey } from './assertion-keys.schema';
import { APPLICATIONS_PATH as P, operatorCommonResponses as common, operatorOperation as op, slugParam } from './operator-route-parts';

export function assertionKeyRoutes(ctx: UseCaseContext, settings: AssertionKeySettings): Route[] {
  return [
    route({ ...op, method: 'get', path: `${P}/{slug}/assertion-keys`, operationId: 'listAssertionKeys',
      summary: "The application's assertion keys without secrets, and which one signs now", pathParams: slugParam,
      responses: { ...common, 200: { description: 'Keys, oldest first', schema: assertionKeyList } } },
    async (_req, res, { params }) => { res.status(200).json(await listAssertionKeys(ctx, settings, params.slug)); }),
    // The body takes no options yet: validated (an empty object or none) and not read.
    route({ ...op, method: 'post', path: `${P}/{slug}/assertion-keys`, operationId: 'issueAssertionKey',
      summary: 'Issue the next assertion key; it signs from now on and its secret appears only in this answer', pathParams: slugParam, body: issueAssertionKeyBody,
      responses: { ...common, 201: { description: 'Issued', schema: issuedAssertionKey } } },
    async (_req, res, { params }) => { res.status(201).json(await issueAssertionKey(ctx, settings, params.slug)); }),
    route({ ...op, method: 'post', path: `${P}/{slug}/assertion-keys/{key_id}/revoke`, operationId: 'revokeAssertionKey',
      summary: 'Stop signing with the key; the previous key or the deployment key takes over',
      pathParams: { ...slugParam, key_id: { description: 'Key id (`ak_` + 16 hex)' } },
      responses: { ...common, 200: { description: 'Revoked', schema: assertionKeyResource } } },
    async (_req, res, { params }) => { res.status(200).json(await revokeAssertionKey(ctx, params.slug, params.key_id)); }),
  ];
}
