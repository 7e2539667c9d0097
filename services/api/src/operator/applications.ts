import { randomUUID } from 'node:crypto';
import { AppError, DOMAIN_CHANGES, isoTimestamp, REVOKED_LAST_ERROR, resolveLimits, ROUTING_KEYS } from '@cds/core';
import { UniqueViolation, type ApplicationRow, type Repositories } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import { SLUG_PATTERN, type CreateApplicationBody, type UpdateApplicationBody } from './applications.schema';
import { toApplicationResource } from './operator.mappers';

export function applicationNotFound(slug: string): AppError {
  return new AppError('application_not_found', `No application with slug ${JSON.stringify(slug)}.`);
}

export async function findApplication(r: Repositories, slug: string): Promise<ApplicationRow> {
  // A slug that could never have been created is not looked up (PostgreSQL refuses some, like U+0000).
  const app = SLUG_PATTERN.test(slug) ? await r.applications.findLiveBySlug(slug) : null;
  if (!app) throw applicationNotFound(slug);
  return app;
}

export async function listApplications(ctx: UseCaseContext) {
  return ctx.store.run(async (r) => (await r.applications.listLive()).map(toApplicationResource));
}

export async function getApplication(ctx: UseCaseContext, slug: string) {
  return ctx.store.run(async (r) => toApplicationResource(await findApplication(r, slug)));
}

export async function createApplication(ctx: UseCaseContext, input: CreateApplicationBody) {
  const now = ctx.now();
  const app: ApplicationRow = {
    id: randomUUID(),
    slug: input.slug,
    name: input.name,
    status: 'active',
    plan: input.plan,
    contactEmail: input.contact_email ?? null,
    limits: resolveLimits(input.plan, input.limits ?? {}),
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    liveDomains: 0,
  };
  try {
    await ctx.store.transaction((r) => r.applications.insert(app));
  } catch (err) {
    if (err instanceof UniqueViolation) throw new AppError('application_exists', `An application with slug ${input.slug} already exists.`, { slug: input.slug });
    throw err;
  }
  return toApplicationResource(app);
}

export async function updateApplication(ctx: UseCaseContext, slug: string, input: UpdateApplicationBody) {
  return ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    await r.applications.lock(app.id);
    const plan = input.plan ?? app.plan;
    const limits = input.plan && input.plan !== app.plan
      ? resolveLimits(input.plan, input.limits ?? {})
      : { ...app.limits, ...(input.limits ?? {}) };
    const updated: ApplicationRow = {
      ...app,
      name: input.name ?? app.name,
      contactEmail: input.contact_email === undefined ? app.contactEmail : input.contact_email,
      status: input.status ?? app.status,
      plan,
      limits,
      updatedAt: ctx.now(),
    };
    await r.applications.update(app.id, {
      name: updated.name, contactEmail: updated.contactEmail, status: updated.status, plan, limits, updatedAt: updated.updatedAt,
    });
    return toApplicationResource(updated);
  });
}

/**
 * Deletes an application: its credentials and webhooks are revoked, its domains deleted
 * (hostnames free at once, edges told) and no webhooks are sent.
 */
export async function deleteApplication(ctx: UseCaseContext, slug: string, confirm: string, deleteDomains: boolean) {
  const result = await ctx.store.transaction(async (r) => {
    const app = await findApplication(r, slug);
    if (confirm !== slug) {
      throw new AppError('confirmation_required', `Repeat the slug to confirm: ?confirm=${slug}.`, { field: 'confirm' });
    }
    await r.applications.lock(app.id);
    const live = await r.domains.listLive(app.id);
    if (live.length > 0 && !deleteDomains) {
      throw new AppError('application_has_live_domains', `The application has ${live.length} live domains; pass delete_domains=true to delete them too.`, { live: live.length });
    }
    const now = ctx.now();
    for (const domain of live) {
      await r.domains.markDeleted(app.id, domain.id, now);
      await r.outbox.add(ROUTING_KEYS.domainChanged, { domain_id: domain.id, hostname: domain.hostname, application_id: app.id, change: DOMAIN_CHANGES.deleted });
    }
    await r.credentials.revokeAll(app.id, now);
    for (const subscription of await r.webhookSubscriptions.list(app.id)) {
      if (subscription.status !== 'active') continue;
      await r.webhookSubscriptions.update(app.id, subscription.id, { status: 'revoked', revokedAt: now, updatedAt: now });
      await r.webhookDeliveries.abandonPending(subscription.id, REVOKED_LAST_ERROR);
    }
    await r.applications.update(app.id, { deletedAt: now, updatedAt: now });
    return { slug, deleted_at: isoTimestamp(now), domains_deleted: live.length };
  });
  if (result.domains_deleted > 0) ctx.afterCommit();
  return result;
}
