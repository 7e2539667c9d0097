import { AppError, CHECK_REASONS, rateLimited, ROUTING_KEYS, type DomainResource } from '@cds/core';
import type { ApplicationRow } from '@cds/data';
import { hitWindow, type WindowState } from '@cds/http';
import type { UseCaseContext } from '../shared/context';
import { findOwnDomain, withChecks } from './read-domains';

const PER_DOMAIN = { limit: 1, windowSeconds: 60 };
const PER_APPLICATION = { limit: 60, windowSeconds: 3600 };

function refuse(state: WindowState, what: string): AppError {
  return rateLimited(state.resetSeconds, `${what}; retry in ${state.resetSeconds} s.`, { retry_after_seconds: state.resetSeconds });
}

/** Asks the checker to run all four checks now; answers with the domain as it was. */
export async function recheckDomain(ctx: UseCaseContext, application: ApplicationRow, id: string): Promise<DomainResource> {
  const at = ctx.now();
  const { resource, domainId } = await ctx.store.run(async (r) => {
    const domain = await findOwnDomain(r, application.id, id, true);
    if (domain.deletedAt) {
      throw new AppError('invalid_status_transition', 'A deleted domain cannot be rechecked.', { status: domain.status });
    }
    // Anchored windows: "1 per 60 s" must hold across minute boundaries too.
    const perDomain = await hitWindow(r.rateCounters, `recheck:domain:${domain.id}`, PER_DOMAIN.limit, PER_DOMAIN.windowSeconds, at, { anchored: true });
    if (!perDomain.allowed) throw refuse(perDomain, 'This domain was rechecked less than 60 seconds ago');
    const perApp = await hitWindow(r.rateCounters, `recheck:app:${application.id}`, PER_APPLICATION.limit, PER_APPLICATION.windowSeconds, at, { anchored: true });
    if (!perApp.allowed) throw refuse(perApp, 'The application has used its 60 rechecks for this hour');
    const [current] = await withChecks(r, [domain], ctx);
    return { resource: current as DomainResource, domainId: domain.id };
  });
  await ctx.store.transaction(async (r) => {
    await r.domains.update(application.id, domainId, { nextCheckAt: at });
    await r.outbox.add(ROUTING_KEYS.domainCheckRequested, { domain_id: domainId, application_id: application.id, reason: CHECK_REASONS.recheck });
  });
  ctx.afterCommit();
  return resource;
}
