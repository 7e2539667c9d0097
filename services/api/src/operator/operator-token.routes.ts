import type { UseCaseContext } from '../shared/context';
import { route, type Route } from '../shared/mount';
import { operatorCommonResponses as common, operatorOperation as op } from './operator-route-parts';
import { replaceOperatorToken } from './operator-token';
import { replaceOperatorTokenBody } from './operator-token.schema';

export function operatorTokenRoutes(ctx: UseCaseContext): Route[] {
  return [
    route({ ...op, method: 'put', path: '/operator/v1/token', operationId: 'replaceOperatorToken',
      summary: 'Replace the operator token on every instance at once; only its SHA-256 is stored', body: replaceOperatorTokenBody, bodyRequired: true,
      responses: { ...common, 204: { description: 'Replaced: the previous token no longer works' } } },
    async (_req, res, { body }) => {
      await replaceOperatorToken(ctx, body.token);
      res.status(204).end();
    }),
  ];
}
