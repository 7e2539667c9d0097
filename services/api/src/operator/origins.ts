import { randomUUID } from 'node:crypto';
import { AppError, isoTimestamp, type OriginStatus } from '@cds/core';
import type { ApplicationRow, OriginRow, Repositories } from '@cds/data';
import { probeOrigin } from '@cds/outbound';
import { UUID_PATTERN } from '../shared/common.schema';
import type { UseCaseContext } from '../shared/context';
import { findApplication } from './applications';
import type { CreateOriginBody } from './origins.schema';

/** How verify reaches origins. */
export interface OriginProbeSettings {
  /** CAs trusted for https origins (node's defaults plus ORIGIN_CA_BUNDLE); node's defaults when undefined. */
  ca: readonly string[] | undefined;
  timeoutMs: number;
}

export function toOriginResource(o: OriginRow) {
  return {
    id: o.id,
    url: o.url,
    health_path: o.healthPath,
    status: o.status,
    last_verified_at: isoTimestamp(o.lastVerifiedAt),
    last_error: o.lastError,
    created_at: isoTimestamp(o.createdAt),
    updated_at: isoTimestamp(o.updatedAt),
  };
}

function originNotFound(): AppError {
  return new AppError('origin_not_found', 'No such origin in this application.');
}

async function findOrigin(r: Repositories, app: ApplicationRow, id: string): Promise<OriginRow> {
  if (!UUID_PATTERN.test(id)) throw originNotFound();
  const origin = await r.origins.find(app.id, id.toLowerCase());
  if (!origin) throw originNotFound();
  return origin;
}

function invalidTransition(action: string, status: OriginStatus, needs: string): AppError {
  return new AppError('invalid_status_transition', `An origin that is ${status} cannot be ${action}; it must be ${needs}.`, { status });
}

export async function listOrigins(ctx: UseCaseContext, slug: string) {
  return ctx.store.run(async (r) => (await r.origins.list((await findApplication(r, slug)).id)).map(toOriginResource));
}

export async function registerOrigin(ctx: UseCaseContext, slug: string, input: CreateOriginBody) {
  const now = ctx.now();
  return ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    const row: OriginRow = {
      id: randomUUID(), applicationId: app.id, url: input.url, healthPath: input.health_path, status: 'pending_verification',
      lastVerifiedAt: null, lastError: null, createdAt: now, updatedAt: now,
    };
    await r.origins.insert(row);
    return toOriginResource(row);
  });
}

/**
 * Probes `GET <url><health_path>` with the origin's own Host and no assertion,
 * outside any transaction (it may take the whole timeout), then records the outcome.
 * Success: `verified` (an active origin stays active). Failure: 422, status unchanged, `last_error` set.
 * `newHealthPath` replaces the stored one before probing, whatever the outcome.
 */
export async function verifyOrigin(ctx: UseCaseContext, probe: OriginProbeSettings, slug: string, id: string, newHealthPath: string | undefined) {
  const origin = await ctx.store.run(async (r) => findOrigin(r, await findApplication(r, slug), id));
  const healthPath = newHealthPath ?? origin.healthPath;
  const result = await probeOrigin({
    url: origin.url, path: healthPath, hostHeader: new URL(origin.url).host, timeoutMs: probe.timeoutMs, ...(probe.ca ? { ca: probe.ca } : {}),
  });
  const now = ctx.now();
  // Re-read: the origin may have been activated, retired or deleted while the probe ran.
  const updated = await ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    const current = await findOrigin(r, app, origin.id);
    const patch: Partial<OriginRow> = result.ok
      ? { healthPath, status: current.status === 'active' ? 'active' : 'verified', lastVerifiedAt: now, lastError: null, updatedAt: now }
      : { healthPath, lastError: result.message, updatedAt: now };
    await r.origins.update(app.id, current.id, patch);
    return { ...current, ...patch };
  });
  if (!result.ok) {
    throw new AppError('origin_verification_failed', `The origin did not pass verification: ${result.message}.`, {
      reason: result.reason,
      ...(result.statusCode !== undefined ? { status_code: result.statusCode } : {}),
      origin_status: updated.status,
    });
  }
  return toOriginResource(updated);
}

/** A verified origin becomes the active one; the previously active origin goes back to verified, in the same transaction. */
export async function activateOrigin(ctx: UseCaseContext, slug: string, id: string) {
  const now = ctx.now();
  return ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    await r.applications.lock(app.id);
    const origin = await findOrigin(r, app, id);
    if (origin.status !== 'verified') throw invalidTransition('activated', origin.status, 'verified');
    const previous = await r.origins.findActive(app.id);
    if (previous) await r.origins.update(app.id, previous.id, { status: 'verified', updatedAt: now });
    await r.origins.update(app.id, origin.id, { status: 'active', updatedAt: now });
    return toOriginResource({ ...origin, status: 'active', updatedAt: now });
  });
}

/** Any state becomes retired; retiring a retired origin changes nothing. */
export async function retireOrigin(ctx: UseCaseContext, slug: string, id: string) {
  const now = ctx.now();
  return ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    const origin = await findOrigin(r, app, id);
    if (origin.status === 'retired') return toOriginResource(origin);
    await r.origins.update(app.id, origin.id, { status: 'retired', updatedAt: now });
    return toOriginResource({ ...origin, status: 'retired', updatedAt: now });
  });
}

export async function deleteOrigin(ctx: UseCaseContext, slug: string, id: string): Promise<void> {
  await ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    const origin = await findOrigin(r, app, id);
    if (origin.status === 'active') {
      throw new AppError('origin_active', 'The active origin cannot be deleted: activate another origin or retire this one first.', { status: origin.status });
    }
    await r.origins.delete(app.id, origin.id);
  });
}
