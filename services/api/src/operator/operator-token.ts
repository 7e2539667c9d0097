import { secretHash } from '@cds/core';
import { OPERATOR_TOKEN_SETTING, parseInput } from '@cds/http';
import type { UseCaseContext } from '../shared/context';
import { replaceOperatorTokenBody } from './operator-token.schema';

/**
 * Stores only the new token's SHA-256. Every instance reads it from the database
 * on each request, so the previous token (the configured one included) stops at once.
 */
export async function replaceOperatorToken(ctx: UseCaseContext, body: unknown): Promise<void> {
  const { token } = parseInput<{ token: string }>(replaceOperatorTokenBody.required(), body, 'body');
  await ctx.store.run((r) => r.settings.set(OPERATOR_TOKEN_SETTING, secretHash(token)));
}
