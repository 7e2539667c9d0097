import type { UseCaseContext } from '../shared/context';
import { pathParam, type Route } from '../shared/mount';
import { issueAssertionKey, listAssertionKeys, revokeAssertionKey, type AssertionKeySettings } from './assertion-keys';
import { assertionKeyList, assertionKeyResource, issueAssertionKeyBody, issuedAssertionKey } from './assertion-keys.schema';
import { APPLICATIONS_PATH as P, operatorCommonResponses as common, operatorOperation as op, slugParam } from './operator-route-parts';

export function assertionKeyRoutes(ctx: UseCaseContext, settings: AssertionKeySettings): Route[] {
  return [
    {
      spec: { ...op, method: 'get', path: `${P}/{slug}/assertion-keys`, operationId: 'listAssertionKeys',
        summary: "The application's assertion keys without secrets, and which one signs now", pathParams: slugParam,
        responses: { ...common, 200: { description: 'Keys, oldest first', schema: assertionKeyList } } },
      handler: async (req, res) => { res.status(200).json(await listAssertionKeys(ctx, settings, pathParam(req, 'slug'))); },
    },
    {
      spec: { ...op, method: 'post', path: `${P}/{slug}/assertion-keys`, operationId: 'issueAssertionKey',
        summary: 'Issue the next assertion key; it signs from now on and its secret appears only in this answer', pathParams: slugParam, body: issueAssertionKeyBody,
        responses: { ...common, 201: { description: 'Issued', schema: issuedAssertionKey } } },
      handler: async (req, res) => { res.status(201).json(await issueAssertionKey(ctx, settings, pathParam(req, 'slug'), req.body)); },
    },
    {
      spec: { ...op, method: 'post', path: `${P}/{slug}/assertion-keys/{key_id}/revoke`, operationId: 'revokeAssertionKey',
        summary: 'Stop signing with the key; the previous key or the deployment key takes over',
        pathParams: { ...slugParam, key_id: { description: 'Key id (`ak_` + 16 hex)' } },
        responses: { ...common, 200: { description: 'Revoked', schema: assertionKeyResource } } },
      handler: async (req, res) => { res.status(200).json(await revokeAssertionKey(ctx, pathParam(req, 'slug'), pathParam(req, 'key_id'))); },
    },
  ];
}
