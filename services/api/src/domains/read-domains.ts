import { AppError, toDomainResource, type DomainResource, type EdgeRouting } from '@cds/core';
import type { ApplicationRow, DomainListFilter, DomainRow, Repositories } from '@cds/data';
import { UUID_PATTERN } from '../shared/common.schema';
import type { UseCaseContext } from '../shared/context';

export function domainNotFound(): AppError {
  return new AppError('domain_not_found', 'No such domain in this application.');
}

/** The caller's domain, or null (another application's domain included). */
function lookupOwnDomain(r: Repositories, applicationId: string, id: string, includeDeleted: boolean): Promise<DomainRow | null> {
  if (!UUID_PATTERN.test(id)) return Promise.resolve(null);
  // Ids are stored lowercase; a uuid written in capitals names the same domain on both databases.
  return r.domains.find(applicationId, id.toLowerCase(), includeDeleted);
}

/** The caller's domain or domain_not_found (other applications' domains included). */
export async function findOwnDomain(r: Repositories, applicationId: string, id: string, includeDeleted: boolean): Promise<DomainRow> {
  const domain = await lookupOwnDomain(r, applicationId, id, includeDeleted);
  if (!domain) throw domainNotFound();
  return domain;
}

export async function withChecks(r: Repositories, domains: DomainRow[], routing: EdgeRouting): Promise<DomainResource[]> {
  const checks = await r.domains.checksOf(domains.map((d) => d.id));
  return domains.map((d) => toDomainResource(d, checks.filter((c) => c.domainId === d.id), routing));
}

/** One domain as a resource, with its checks. */
export async function domainResourceOf(r: Repositories, domain: DomainRow, routing: EdgeRouting): Promise<DomainResource> {
  return toDomainResource(domain, await r.domains.checksOf([domain.id]), routing);
}

/** The application's domain with this id as a resource, or null. */
export async function findDomain(ctx: UseCaseContext, application: ApplicationRow, id: string, includeDeleted: boolean): Promise<DomainResource | null> {
  return ctx.store.run(async (r) => {
    const domain = await lookupOwnDomain(r, application.id, id, includeDeleted);
    return domain ? domainResourceOf(r, domain, ctx) : null;
  });
}

export async function getDomain(ctx: UseCaseContext, application: ApplicationRow, id: string, includeDeleted: boolean): Promise<DomainResource> {
  const resource = await findDomain(ctx, application, id, includeDeleted);
  if (!resource) throw domainNotFound();
  return resource;
}

export async function listDomains(
  ctx: UseCaseContext,
  application: ApplicationRow,
  filter: DomainListFilter,
): Promise<{ items: DomainResource[]; limit: number; offset: number }> {
  return ctx.store.run(async (r) => {
    const domains = await r.domains.list(application.id, filter);
    return { items: await withChecks(r, domains, ctx), limit: filter.limit, offset: filter.offset };
  });
}
