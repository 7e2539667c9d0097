import { isoTimestamp } from '@cds/core';
import type { ApplicationRow, CredentialRow } from '@cds/data';

export function toApplicationResource(app: ApplicationRow) {
  return {
    slug: app.slug,
    name: app.name,
    status: app.status,
    plan: app.plan,
    contact_email: app.contactEmail,
    limits: app.limits,
    live_domains: app.liveDomains,
    created_at: isoTimestamp(app.createdAt),
    updated_at: isoTimestamp(app.updatedAt),
  };
}

export function credentialStatus(c: CredentialRow, now: Date): 'active' | 'revoked' | 'expired' {
  if (c.revokedAt) return 'revoked';
  if (c.expiresAt && c.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

export function toCredentialResource(c: CredentialRow, now: Date) {
  return {
    id: c.id,
    name: c.name,
    prefix: c.prefix,
    status: credentialStatus(c, now),
    created_at: isoTimestamp(c.createdAt),
    expires_at: isoTimestamp(c.expiresAt),
    revoked_at: isoTimestamp(c.revokedAt),
    last_used_at: isoTimestamp(c.lastUsedAt),
  };
}
