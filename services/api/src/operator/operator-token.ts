import { OPERATOR_TOKEN_SETTING, secretHash } from '@cds/core';
import type { UseCaseContext } from '../shared/context';

/**
 * Stores only the new token's SHA-256. Every instance reads it from the database
 * on each request, so the previous token (the configured one included) stops at once.
 */
export async function replaceOperatorToken(ctx: UseCaseContext, token: string): Promise<void> {
  await ctx.store.run((r) => r.settings.set(OPERATOR_TOKEN_SETTING, secretHash(token)));
}
