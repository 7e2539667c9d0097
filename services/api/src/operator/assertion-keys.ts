import { AppError, ASSERTION_KID_PATTERN, encryptSecret, generateAssertionKey, isoTimestamp, SEAL_PURPOSES, selectSigningKey } from '@cds/core';
import type { AssertionKeyRow } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import { findApplication } from './applications';

export interface AssertionKeySettings {
  /** Seals the secrets at rest (DATA_ENCRYPTION_KEY). */
  dataEncryptionKey: Buffer;
  /** ASSERTION_DEPLOYMENT_KID: signs for applications without an active key. */
  deploymentKid: string;
}

export function toAssertionKeyResource(k: AssertionKeyRow) {
  return {
    kid: k.kid,
    status: k.revokedAt ? ('revoked' as const) : ('active' as const),
    created_at: isoTimestamp(k.createdAt),
    revoked_at: isoTimestamp(k.revokedAt),
  };
}

export async function listAssertionKeys(ctx: UseCaseContext, settings: AssertionKeySettings, slug: string) {
  return ctx.store.run(async (r) => {
    const keys = await r.assertionKeys.list((await findApplication(r, slug)).id);
    return { signing_kid: selectSigningKey(keys, { kid: settings.deploymentKid }).kid, keys: keys.map(toAssertionKeyResource) };
  });
}

/** The next key signs from now on; its secret is returned once and stored sealed. */
export async function issueAssertionKey(ctx: UseCaseContext, settings: AssertionKeySettings, slug: string) {
  const now = ctx.now();
  return ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    await r.applications.lock(app.id);
    // Keys issued within one millisecond still get distinct, increasing times, so "the newest" is never a tie.
    const newest = (await r.assertionKeys.list(app.id)).reduce((t, k) => Math.max(t, k.createdAt.getTime()), 0);
    const createdAt = new Date(Math.max(now.getTime(), newest + 1));
    const { kid, secret } = generateAssertionKey();
    const row: AssertionKeyRow = { kid, applicationId: app.id, secretSealed: encryptSecret(secret, settings.dataEncryptionKey, { purpose: SEAL_PURPOSES.assertionKey, id: kid }), createdAt, revokedAt: null };
    await r.assertionKeys.insert(row);
    return { kid, secret, status: 'active' as const, created_at: isoTimestamp(createdAt) };
  });
}

/** Stops signing with the key; revoking it again answers the record unchanged. */
export async function revokeAssertionKey(ctx: UseCaseContext, slug: string, kid: string) {
  const now = ctx.now();
  return ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    const key = ASSERTION_KID_PATTERN.test(kid) ? await r.assertionKeys.find(app.id, kid) : null;
    if (!key) throw new AppError('assertion_key_not_found', 'No such assertion key in this application.');
    if (key.revokedAt) return toAssertionKeyResource(key);
    await r.assertionKeys.revoke(app.id, key.kid, now);
    return toAssertionKeyResource({ ...key, revokedAt: now });
  });
}
