import { AppError, canonicalHostname, CHECK_REASONS, ROUTING_KEYS, type CertIssuer } from '@cds/core';
import type { UseCaseContext } from '../shared/context';

/** Hostnames listed in the answer at most; `marked` counts them all. */
export const RENEWAL_HOSTNAMES_LISTED = 100;

export type RenewalRequestBody = { hostname: string } | { all: true; issuer?: CertIssuer; directory_url?: string };

export interface RenewalRequestResult {
  marked: number;
  hostnames: string[];
}

/**
 * Marks certificates to be issued again at the next check of their domain
 * (`cdctl certificate renew`): the old certificate keeps serving until the new
 * one is stored, and the orders go through the ACME order budget like any
 * other, so a large set is issued over the following hours. One hostname's
 * domain is also asked for a check now; with `all`, the domains marked are
 * made due and the scheduler takes them at its pace.
 */
export async function requestCertificateRenewal(ctx: UseCaseContext, body: RenewalRequestBody): Promise<RenewalRequestResult> {
  const at = ctx.now();
  if ('hostname' in body) {
    const hostname = canonicalHostname(body.hostname);
    const marked = await ctx.store.transaction(async (r) => {
      const domain = await r.domains.findLiveByHostname(hostname);
      if (!domain) throw new AppError('domain_not_found', `No live domain has the hostname ${hostname}.`, { hostname });
      const rows = await r.certificates.requestRenewal({ hostname }, at);
      if (rows.length === 0) {
        throw new AppError('invalid_status_transition', `The domain of ${hostname} has no certificate yet: its first one is issued once its DNS checks pass.`, { hostname });
      }
      await r.outbox.add(ROUTING_KEYS.domainCheckRequested, { domain_id: domain.id, application_id: domain.applicationId, reason: CHECK_REASONS.recheck });
      return rows;
    });
    ctx.afterCommit();
    return { marked: marked.length, hostnames: marked.map((row) => row.hostname) };
  }
  const marked = await ctx.store.transaction((r) => r.certificates.requestRenewal({
    ...(body.issuer ? { issuer: body.issuer } : {}), ...(body.directory_url ? { directoryUrl: body.directory_url } : {}),
  }, at));
  return { marked: marked.length, hostnames: marked.slice(0, RENEWAL_HOSTNAMES_LISTED).map((row) => row.hostname) };
}
