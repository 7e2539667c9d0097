import { AppError, canonicalHostname, toDomainResource } from '@cds/core';
import type { DomainRow, Repositories } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import { toCertificateResource, toDomainLookupResource, type DomainLookupResource } from './domain-lookup.mapper';

export interface DomainLookupSettings {
  /** The first directory of ACME_DIRECTORY_URL: shown for an `acme` certificate issued before its directory was kept. */
  acmeDirectoryUrl: string;
}

/** The live domain of the hostname; with `includeDeleted`, the one deleted last when none is live. */
async function findByHostname(r: Repositories, hostname: string, includeDeleted: boolean): Promise<DomainRow> {
  const domain = (await r.domains.findLiveByHostname(hostname)) ?? (includeDeleted ? await r.domainLookup.latestDeleted(hostname) : null);
  if (domain) return domain;
  const message = includeDeleted
    ? `No domain, live or deleted, has the hostname ${hostname}.`
    : `No live domain has the hostname ${hostname} (include_deleted=true also finds deleted ones).`;
  throw new AppError('domain_not_found', message, { hostname });
}

/**
 * The operator's lookup of a domain by hostname, across applications (DECISIONS
 * §15). The hostname is normalized as at registration; a name that is no
 * hostname is refused with registration's codes.
 */
export async function lookupDomain(ctx: UseCaseContext, settings: DomainLookupSettings, hostnameInput: string, includeDeleted: boolean): Promise<DomainLookupResource> {
  const hostname = canonicalHostname(hostnameInput);
  return ctx.store.run(async (r) => {
    const domain = await findByHostname(r, hostname, includeDeleted);
    const application = await r.applications.findById(domain.applicationId);
    if (!application) throw new Error(`domain ${domain.id} names no application`);
    const checks = await r.domains.checksOf([domain.id]);
    // The hostname's certificate may still be an earlier domain's of that hostname: not this one's.
    const stored = await r.certificates.find(hostname);
    const certificate = stored?.domainId === domain.id ? stored : null;
    const runs = await r.domainLookup.recentRuns(domain.id);
    return toDomainLookupResource(
      toDomainResource(domain, checks, ctx),
      application.slug,
      certificate && toCertificateResource(certificate, settings.acmeDirectoryUrl),
      runs,
    );
  });
}
