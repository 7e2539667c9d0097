import { AppError, CHECK_REASONS, rateLimited, ROUTING_KEYS, windowState, type DomainResource, type WindowState } from '@cds/core';
import type { ApplicationRow, Repositories } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import { domainResourceOf, findOwnDomain } from './read-domains';

const PER_DOMAIN = { limit: 1, windowSeconds: 60 };
const PER_APPLICATION = { limit: 60, windowSeconds: 3600 };

function refuse(state: WindowState, what: string): AppError {
  return rateLimited(state.resetSeconds, `${what}; retry in ${state.resetSeconds} s.`, { retry_after_seconds: state.resetSeconds });
}

/** Counts a recheck in its window. Anchored windows: "1 per 60 s" must hold across minute boundaries too. */
async function hit(r: Repositories, key: string, budget: { limit: number; windowSeconds: number }, at: Date): Promise<WindowState> {
  const { count, resetAt } = await r.rateCounters.hit(key, budget.windowSeconds, at, { anchored: true });
  return windowState(count, budget.limit, resetAt, at);
}

/** Asks the checker to run all four checks now; answers with the domain as it was. */
export async function recheckDomain(ctx: UseCaseContext, application: ApplicationRow, id: string): Promise<DomainResource> {
  const at = ctx.now();
  const { resource, domainId } = await ctx.store.run(async (r) => {
    const domain = await findOwnDomain(r, application.id, id, true);
    if (domain.deletedAt) {
      throw new AppError('invalid_status_transition', 'A deleted domain cannot be rechecked.', { status: domain.status });
    }
    const perDomain = await hit(r, `recheck:domain:${domain.id}`, PER_DOMAIN, at);
    if (!perDomain.allowed) throw refuse(perDomain, 'This domain was rechecked less than 60 seconds ago');
    const perApp = await hit(r, `recheck:app:${application.id}`, PER_APPLICATION, at);
    if (!perApp.allowed) throw refuse(perApp, 'The application has used its 60 rechecks for this hour');
    return { resource: await domainResourceOf(r, domain, ctx), domainId: domain.id };
  });
  await ctx.store.transaction(async (r) => {
    await r.domains.update(application.id, domainId, { nextCheckAt: at });
    await r.outbox.add(ROUTING_KEYS.domainCheckRequested, { domain_id: domainId, application_id: application.id, reason: CHECK_REASONS.recheck });
  });
  ctx.afterCommit();
  return resource;
}
