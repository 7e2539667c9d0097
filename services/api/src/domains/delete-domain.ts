import type { ApplicationRow, DomainRow } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import { DOMAIN_CHANGES, domainEvent, ROUTING_KEYS, type DomainResource } from '@cds/core';
import { domainResourceOf, findOwnDomain } from './read-domains';

/**
 * Requests deletion: `deleting` is terminal, the hostname is free at once and
 * `domain.deleted` is emitted exactly once; repeating it changes nothing.
 */
export async function deleteDomain(ctx: UseCaseContext, application: ApplicationRow, id: string): Promise<DomainResource> {
  const { resource, changed } = await ctx.store.transaction(async (r) => {
    await r.applications.lock(application.id); // serializes concurrent deletes of one domain; creates lock it first too
    const domain = await findOwnDomain(r, application.id, id, true);
    if (domain.deletedAt) return { resource: await domainResourceOf(r, domain, ctx), changed: false };
    const now = ctx.now();
    await r.domains.markDeleted(application.id, domain.id, now);
    const deleted: DomainRow = { ...domain, status: 'deleting', deletedAt: now, updatedAt: now, nextCheckAt: null };
    const resource = await domainResourceOf(r, deleted, ctx);
    await r.outbox.add(ROUTING_KEYS.eventEmitted, domainEvent('domain.deleted', application.id, resource, now));
    await r.outbox.add(ROUTING_KEYS.domainChanged, { domain_id: domain.id, hostname: domain.hostname, application_id: application.id, change: DOMAIN_CHANGES.deleted });
    return { resource, changed: true };
  });
  if (changed) ctx.afterCommit();
  return resource;
}
