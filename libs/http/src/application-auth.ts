import type { RequestHandler, Request } from 'express';
import { AppError, secretHash, looksLikeApiKey, rateLimited } from '@cds/core';
import type { ApplicationRow, CredentialRow, DataStore } from '@cds/data';
import { clientAddress } from './client-address';
import { hitWindow, peekWindow } from './fixed-window';

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

/** The credential's application, set by `applicationAuth`. */
export function principalOf(req: Request): ApplicationPrincipal {
  if (!req.principal) throw new Error('applicationAuth did not run for this route');
  return req.principal;
}

function bearerToken(req: Request): string | null {
  const header = req.get('authorization');
  if (!header) return null;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match?.[1] ?? null;
}

function credentialValid(credential: CredentialRow, now: Date): boolean {
  if (credential.revokedAt) return false;
  return !credential.expiresAt || credential.expiresAt.getTime() > now.getTime();
}

/**
 * Application credential check for /v1: the invalid-credential throttle first
 * (so a throttled guesser learns nothing), then the key, then the per-credential
 * request budget (every request with a valid key counts), then suspension.
 */
export function applicationAuth(opts: ApplicationAuthOptions): RequestHandler {
  const now = opts.now ?? (() => new Date());
  const lastUsedWritten = new Map<string, number>();

  return async (req, res, next) => {
    const at = now();
    const address = clientAddress(req);
    const failureKey = `auth-fail:v1:${address}`;
    const throttle = await opts.store.run((r) => peekWindow(r.rateCounters, failureKey, opts.failuresPerMinute, 60, at));
    if (!throttle.allowed) throw rateLimited(throttle.resetSeconds, 'Too many invalid credentials from this address.');

    const key = bearerToken(req);
    const found = key && looksLikeApiKey(key)
      ? await opts.store.run(async (r) => {
          const pair = await r.credentials.findWithApplication(secretHash(key));
          return pair && credentialValid(pair.credential, at) ? pair : null;
        })
      : null;
    if (!found) {
      await opts.store.run((r) => r.rateCounters.hit(failureKey, 60, at));
      throw new AppError('unauthorized', 'A valid application credential is required: send Authorization: Bearer cd_….');
    }

    const { application, credential } = found;
    const budget = await opts.store.run((r) =>
      hitWindow(r.rateCounters, `api:${credential.id}`, application.limits.api_requests_per_minute, 60, at),
    );
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
    req.principal = { application, credential };
    next();
  };
}
