import type { RequestHandler, Request } from 'express';
import { AppError, secretHash, looksLikeApiKey, rateLimited, secondsUntil, windowState } from '@cds/core';
import { windowOf, type ApplicationRow, type CredentialRow, type DataStore } from '@cds/data';
import { clientAddress } from './client-address';
import { countFailure, FAILURE_WINDOW_SECONDS } from './failure-throttle';

export interface ApplicationPrincipal {
  application: ApplicationRow;
  credential: CredentialRow;
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: ApplicationPrincipal;
  }
}

export interface ApplicationAuthOptions {
  store: DataStore;
  /** Invalid credentials per client address per minute before every request from it gets 429. */
  failuresPerMinute: number;
  now?: () => Date;
}

const LAST_USED_RESOLUTION_MS = 60_000;
/** Both the request budget and the invalid-credential throttle count per clock-aligned minute (authenticate reads both in one window). */
const WINDOW_SECONDS = FAILURE_WINDOW_SECONDS;
const BUDGET_PREFIX = 'api:';

/** The credential's application, set by `applicationAuth`. */
export function principalOf(req: Request): ApplicationPrincipal {
  if (!req.principal) throw new Error('applicationAuth did not run for this route');
  return req.principal;
}

const throttled = (retryAfterSeconds: number): AppError => rateLimited(retryAfterSeconds, 'Too many invalid credentials from this address.');

function bearerToken(req: Request): string | null {
  const header = req.get('authorization');
  if (!header) return null;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Application credential check for /v1: the invalid-credential throttle first
 * (so a throttled guesser learns nothing), then the key, then the per-credential
 * request budget (every request with a valid key counts), then suspension. For
 * a presented key the reads and the budget hit are one statement on PostgreSQL;
 * a failed one is counted by a second, which decides whether its 401 may be
 * given (failure-throttle.ts).
 */
export function applicationAuth(opts: ApplicationAuthOptions): RequestHandler {
  const now = opts.now ?? (() => new Date());
  const lastUsedWritten = new Map<string, number>();

  return async (req, res, next) => {
    const at = now();
    const throttleKey = `auth-fail:v1:${clientAddress(req)}`;
    const key = bearerToken(req);
    const auth = key && looksLikeApiKey(key)
      ? await opts.store.run((r) => r.credentials.authenticate({
          keyHash: secretHash(key), now: at, throttleKey, throttleLimit: opts.failuresPerMinute, budgetPrefix: BUDGET_PREFIX, windowSeconds: WINDOW_SECONDS,
        }))
      : { failures: (await opts.store.run((r) => r.rateCounters.peek(throttleKey, WINDOW_SECONDS, at))).count, found: null, budget: null };
    // Already at the limit when read: refused without a write (failures only grow within a window).
    if (auth.failures >= opts.failuresPerMinute) throw throttled(secondsUntil(windowOf(WINDOW_SECONDS, at).resetAt, at));
    if (!auth.found || !auth.budget) {
      const verdict = await opts.store.run((r) => countFailure(r.rateCounters, throttleKey, opts.failuresPerMinute, at));
      if (!verdict.admitted) throw throttled(verdict.retryAfterSeconds);
      throw new AppError('unauthorized', 'A valid application credential is required: send Authorization: Bearer cd_….');
    }

    const { application, credential } = auth.found;
    // Set before the budget may refuse: the request had a valid credential (metrics name the limiter by it).
    req.principal = { application, credential };
    const budget = windowState(auth.budget.count, application.limits.api_requests_per_minute, auth.budget.resetAt, at);
    res.setHeader('RateLimit-Limit', String(budget.limit));
    res.setHeader('RateLimit-Remaining', String(budget.remaining));
    res.setHeader('RateLimit-Reset', String(budget.resetSeconds));
    if (!budget.allowed) throw rateLimited(budget.resetSeconds, `Request rate above ${budget.limit} per minute for this credential.`);
    if (application.status === 'suspended') {
      throw new AppError('application_suspended', 'The application is suspended; contact the operator of this service.');
    }

    // last_used_at is informational: write it at most once a minute per credential and process.
    const written = lastUsedWritten.get(credential.id) ?? 0;
    if (at.getTime() - written >= LAST_USED_RESOLUTION_MS) {
      lastUsedWritten.set(credential.id, at.getTime());
      await opts.store.run((r) => r.credentials.touchLastUsed(credential.id, at));
    }
    next();
  };
}
