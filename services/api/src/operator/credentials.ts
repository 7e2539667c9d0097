import { randomUUID } from 'node:crypto';
import { AppError, generateApiKey, secretHash, keyPrefix } from '@cds/core';
import type { ApplicationRow, CredentialRow, Repositories } from '@cds/data';
import { UUID_PATTERN } from '../shared/common.schema';
import type { UseCaseContext } from '../shared/context';
import { findApplication } from './applications';
import { credentialStatus, toCredentialResource } from './operator.mappers';

const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

function credentialNotFound(): AppError {
  return new AppError('credential_not_found', 'No such credential in this application.');
}

async function findCredential(r: Repositories, app: ApplicationRow, id: string): Promise<CredentialRow> {
  if (!UUID_PATTERN.test(id)) throw credentialNotFound();
  const credential = await r.credentials.find(app.id, id.toLowerCase());
  if (!credential) throw credentialNotFound();
  return credential;
}

function limitReached(limit: number): AppError {
  return new AppError('credential_limit_reached', `The plan allows ${limit} active credential(s).`, { limit });
}

function newCredential(app: ApplicationRow, name: string | null, now: Date): { row: CredentialRow; secret: string } {
  const secret = generateApiKey();
  return {
    secret,
    row: {
      id: randomUUID(), applicationId: app.id, name, prefix: keyPrefix(secret), keyHash: secretHash(secret),
      revokedAt: null, expiresAt: null, replacedById: null, createdAt: now, lastUsedAt: null,
    },
  };
}

export async function listCredentials(ctx: UseCaseContext, slug: string) {
  const now = ctx.now();
  return ctx.store.run(async (r) => {
    const app = await findApplication(r, slug);
    return (await r.credentials.list(app.id)).map((c) => toCredentialResource(c, now));
  });
}

/** `name`: the credential's label, null for none. */
export async function issueCredential(ctx: UseCaseContext, slug: string, name: string | null) {
  const now = ctx.now();
  return ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    await r.applications.lock(app.id);
    if ((await r.credentials.countActive(app.id, now)) >= app.limits.credentials) throw limitReached(app.limits.credentials);
    const { row, secret } = newCredential(app, name, now);
    await r.credentials.insert(row);
    return { ...toCredentialResource(row, now), secret };
  });
}

/** A new credential; the old one stays valid for 24 hours (the plan's number plus one overlap). Without a `name` it keeps the old one's. */
export async function rotateCredential(ctx: UseCaseContext, slug: string, id: string, name: string | null) {
  const now = ctx.now();
  return ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    await r.applications.lock(app.id);
    const old = await findCredential(r, app, id);
    if (credentialStatus(old, now) !== 'active' || old.replacedById) {
      throw new AppError('invalid_status_transition', 'Only an active credential that was not rotated yet can be rotated.', { status: credentialStatus(old, now) });
    }
    if ((await r.credentials.countActive(app.id, now)) + 1 > app.limits.credentials + 1) throw limitReached(app.limits.credentials);
    const { row, secret } = newCredential(app, name ?? old.name, now);
    await r.credentials.insert(row);
    await r.credentials.update(app.id, old.id, { expiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS), replacedById: row.id });
    return { ...toCredentialResource(row, now), secret };
  });
}

export async function revokeCredential(ctx: UseCaseContext, slug: string, id: string) {
  const now = ctx.now();
  return ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    const credential = await findCredential(r, app, id);
    if (credential.revokedAt) return toCredentialResource(credential, now);
    await r.credentials.update(app.id, credential.id, { revokedAt: now });
    return toCredentialResource({ ...credential, revokedAt: now }, now);
  });
}

export async function deleteCredential(ctx: UseCaseContext, slug: string, id: string): Promise<void> {
  await ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    const credential = await findCredential(r, app, id);
    await r.credentials.delete(app.id, credential.id);
  });
}
