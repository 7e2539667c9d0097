import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Request } from 'express';
import { AppError, cidrMatcher, OPERATOR_TOKEN_SETTING, rateLimited, secretHash } from '@cds/core';
import type { DataStore } from '@cds/data';
import { clientAddress } from './client-address';
import { countFailure, peekThrottle } from './failure-throttle';

export interface OperatorAuthOptions {
  store: DataStore;
  configuredToken: string;
  allowedCidrs: readonly string[];
  failuresPerMinute: number;
  now?: () => Date;
}

const throttled = (retryAfterSeconds: number): AppError => rateLimited(retryAfterSeconds, 'Too many failed operator tokens from this address.');

function bearer(req: Request): string | null {
  const match = /^Bearer +([^\s]+) *$/i.exec(req.get('authorization') ?? '');
  return match?.[1] ?? null;
}

function sameDigest(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Operator token check, in the contract's order: address not allowed → 403,
 * throttled → 429, token missing or wrong → 401. (API off → 404 is decided by
 * not mounting the router at all.) The valid token is read from the database on
 * every request so a replacement takes effect at once on every instance. The
 * throttle decides a failure's answer after the comparison, in one atomic step
 * (failure-throttle.ts).
 */
export function operatorAuth(opts: OperatorAuthOptions): RequestHandler {
  const now = opts.now ?? (() => new Date());
  const allowed = cidrMatcher(opts.allowedCidrs);
  const configuredHash = secretHash(opts.configuredToken);

  return async (req, _res, next) => {
    const at = now();
    const address = clientAddress(req);
    if (!allowed(address)) throw new AppError('forbidden', 'The operator API is not open to this client address.');
    const failureKey = `auth-fail:operator:${address}`;
    const early = await opts.store.run((r) => peekThrottle(r.rateCounters, failureKey, opts.failuresPerMinute, at));
    if (!early.admitted) throw throttled(early.retryAfterSeconds);

    const token = bearer(req);
    const expected = (await opts.store.run((r) => r.settings.get(OPERATOR_TOKEN_SETTING))) ?? configuredHash;
    const valid = token !== null && sameDigest(secretHash(token), expected);
    if (valid) return next();
    const verdict = await opts.store.run((r) => countFailure(r.rateCounters, failureKey, opts.failuresPerMinute, at));
    if (!verdict.admitted) throw throttled(verdict.retryAfterSeconds);
    throw new AppError('unauthorized', 'A valid operator token is required: send Authorization: Bearer <token>.');
  };
}
