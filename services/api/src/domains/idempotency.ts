import { randomUUID } from 'node:crypto';
import { AppError, errorBody, requestHash } from '@cds/core';
import type { IdempotencyRow } from '@cds/data';
import { v5 as uuidv5 } from 'uuid';
import type { UseCaseContext } from '../shared/context';

const TTL_MS = 24 * 60 * 60 * 1000;
/** A twin still "in progress" after this long died with its process: its key may be taken over. */
const ABANDONED_AFTER_MS = 60_000;

/** Namespace of the resource ids derived from a claimed key (UUID version 5). */
const CLAIM_NAMESPACE = '6f1c2e0a-4b7d-5e8f-9a3b-2c1d0e4f5a6b';

/**
 * The id the request holding a claim creates its resource under: derived from
 * the claim, so a request taking over an abandoned claim can tell whether the
 * dead one got as far as committing its resource.
 */
export function claimedResourceId(applicationId: string, key: string, claimedAt: Date): string {
  return uuidv5(`${applicationId}\n${key}\n${claimedAt.toISOString()}`, CLAIM_NAMESPACE);
}

/** The guarded create: `create` makes the resource under the id given, `find` reads it back by that id (null when absent). */
export interface IdempotentCreate {
  create: (id: string) => Promise<unknown>;
  find: (id: string) => Promise<unknown>;
}

export interface Outcome {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** 4xx answers of the create itself are stored and replayed; auth, throttling and 5xx never reach here or are not kept. */
function storable(err: unknown): err is AppError {
  return err instanceof AppError && err.status >= 400 && err.status < 500 && ![401, 403, 429].includes(err.status);
}

/**
 * Runs `create` at most once per (application, Idempotency-Key) for 24 hours:
 * the same body later gets the stored answer (a 201 replayed as 200), another
 * body gets idempotency_key_reused, and a twin still running gets
 * idempotency_request_in_progress.
 */
export async function withIdempotency(
  ctx: UseCaseContext,
  applicationId: string,
  key: string | undefined,
  body: unknown,
  { create, find }: IdempotentCreate,
): Promise<Outcome> {
  if (key === undefined) return { status: 201, body: await create(randomUUID()), replayed: false };

  const hash = requestHash(body ?? null);
  const now = ctx.now();
  const claim: IdempotencyRow = {
    applicationId, key, requestHash: hash, state: 'in_progress', responseStatus: null, responseBody: null,
    createdAt: now, expiresAt: new Date(now.getTime() + TTL_MS),
  };
  let claimed = await ctx.store.run((r) => r.idempotency.tryInsert(claim));
  if (!claimed) {
    const twin = await ctx.store.run((r) => r.idempotency.find(applicationId, key));
    if (twin?.state === 'in_progress' && now.getTime() - twin.createdAt.getTime() > ABANDONED_AFTER_MS) {
      // When the process died between committing the resource and completing the key, finish its work instead of creating again.
      const created = twin.requestHash === hash ? await find(claimedResourceId(applicationId, key, twin.createdAt)) : null;
      if (created !== null) {
        // Of several retries, the one that completes the dead claim answers from it; the others read what it stored.
        if (await ctx.store.run((r) => r.idempotency.complete(applicationId, key, twin.createdAt, 201, JSON.stringify(created)))) {
          return { status: 200, body: created, replayed: true };
        }
      } else {
        // Compare-and-swap on the dead claim: of several retries exactly one takes it over.
        claimed = await ctx.store.run((r) => r.idempotency.takeOver(claim, twin.createdAt));
      }
    }
  }
  if (!claimed) {
    const existing = await ctx.store.run((r) => r.idempotency.find(applicationId, key));
    if (existing && existing.requestHash !== hash) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different body.', { key });
    }
    if (!existing || existing.state === 'in_progress' || existing.responseStatus === null || existing.responseBody === null) {
      throw new AppError('idempotency_request_in_progress', 'The first request with this Idempotency-Key has not finished yet.', { key });
    }
    const status = existing.responseStatus === 201 ? 200 : existing.responseStatus;
    return { status, body: JSON.parse(existing.responseBody), replayed: true };
  }

  // Every write below names this claim: once another request has taken the key over, they change nothing.
  try {
    const result = await create(claimedResourceId(applicationId, key, now));
    await ctx.store.run((r) => r.idempotency.complete(applicationId, key, now, 201, JSON.stringify(result)));
    return { status: 201, body: result, replayed: false };
  } catch (err) {
    if (storable(err)) {
      await ctx.store.run((r) => r.idempotency.complete(applicationId, key, now, err.status, JSON.stringify(errorBody(err))));
    } else {
      await ctx.store.run((r) => r.idempotency.delete(applicationId, key, now));
    }
    throw err;
  }
}
