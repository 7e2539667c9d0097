import { AppError, requestHash } from '@cds/core';
import { errorBody } from '@cds/http';
import type { UseCaseContext } from '../shared/context';

const TTL_MS = 24 * 60 * 60 * 1000;
/** A twin still "in progress" after this long died with its process: its key may be taken over. */
const ABANDONED_AFTER_MS = 60_000;

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
  create: () => Promise<unknown>,
): Promise<Outcome> {
  if (key === undefined) return { status: 201, body: await create(), replayed: false };

  const hash = requestHash(body ?? null);
  const now = ctx.now();
  const claim = () =>
    ctx.store.run((r) =>
      r.idempotency.tryInsert({
        applicationId, key, requestHash: hash, state: 'in_progress', responseStatus: null, responseBody: null,
        createdAt: now, expiresAt: new Date(now.getTime() + TTL_MS),
      }),
    );
  let inserted = await claim();
  if (!inserted) {
    const twin = await ctx.store.run((r) => r.idempotency.find(applicationId, key));
    if (twin?.state === 'in_progress' && now.getTime() - twin.createdAt.getTime() > ABANDONED_AFTER_MS) {
      await ctx.store.run((r) => r.idempotency.delete(applicationId, key));
      inserted = await claim();
    }
  }
  if (!inserted) {
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

  try {
    const result = await create();
    await ctx.store.run((r) => r.idempotency.complete(applicationId, key, 201, JSON.stringify(result)));
    return { status: 201, body: result, replayed: false };
  } catch (err) {
    if (storable(err)) {
      await ctx.store.run((r) => r.idempotency.complete(applicationId, key, err.status, JSON.stringify(errorBody(err))));
    } else {
      await ctx.store.run((r) => r.idempotency.delete(applicationId, key));
    }
    throw err;
  }
}
