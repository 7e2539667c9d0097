import { randomUUID } from 'node:crypto';
import { AppError, CHECK_TYPES, generateChallengeToken, normalizeHostname, toDomainResource, type DomainResource } from '@cds/core';
import { UniqueViolation, type ApplicationRow, type CheckRow, type DomainRow, type MetadataValue, type Repositories } from '@cds/data';
import { parseInput } from '@cds/http';
import type { UseCaseContext } from '../shared/context';
import { createDomainBody } from './domains.schema';

interface CreateDomainBody {
  hostname: string;
  reference: string;
  metadata?: Record<string, MetadataValue>;
}

const MAX_REFERENCE = 255;

function claimedError(hostname: string): AppError {
  return new AppError('hostname_already_claimed', `The hostname ${hostname} is already registered and live.`, { hostname });
}

/**
 * Runs after the inserts, last in the transaction, so the application's row
 * lock is held only for the count and the commit. Creates of one application
 * queue on that lock; each counts after the previous one committed (READ
 * COMMITTED takes a fresh snapshot per statement), so the limit cannot be
 * passed. The counts include the domain being created.
 */
async function enforceLimits(r: Repositories, application: ApplicationRow, deploymentLimit: number): Promise<void> {
  await r.applications.lock(application.id);
  const live = (await r.domains.countLive(application.id)) - 1;
  const limit = application.limits.live_domains;
  if (live >= limit) {
    throw new AppError('domain_limit_reached', `The application has reached its limit of ${limit} live domains.`, { scope: 'application', limit, live });
  }
  if (deploymentLimit > 0) {
    await r.applications.lockDeployment();
    const all = (await r.domains.countLiveAll()) - 1;
    if (all >= deploymentLimit) {
      throw new AppError('domain_limit_reached', `The deployment has reached its limit of ${deploymentLimit} live domains.`, { scope: 'deployment', limit: deploymentLimit, live: all });
    }
  }
}

export async function registerDomain(ctx: UseCaseContext, application: ApplicationRow, body: unknown): Promise<DomainResource> {
  const input = parseInput<CreateDomainBody>(createDomainBody.required(), body, 'body');
  const referenceLength = [...input.reference].length;
  if (referenceLength === 0 || referenceLength > MAX_REFERENCE) {
    throw new AppError('invalid_reference', `reference must be 1 to ${MAX_REFERENCE} characters (got ${referenceLength}).`, { field: 'reference' });
  }
  // PostgreSQL text cannot hold U+0000; refuse it on every database alike.
  if (input.reference.includes('\u0000')) {
    throw new AppError('invalid_reference', 'reference must not contain the NUL character (U+0000).', { field: 'reference' });
  }
  const hostname = normalizeHostname(input.hostname, { edgeTarget: ctx.edgeTarget });

  const now = ctx.now();
  const domain: DomainRow = {
    id: randomUUID(),
    applicationId: application.id,
    hostname,
    reference: input.reference,
    status: 'pending_dns',
    challengeToken: generateChallengeToken(),
    metadata: input.metadata ?? {},
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    nextCheckAt: now,
  };
  const checks: CheckRow[] = CHECK_TYPES.map((type) => ({
    domainId: domain.id, type, status: 'pending', errorCode: null, message: null, observedAt: null, nextCheckAt: null,
  }));

  await ctx.store.transaction(async (r) => {
    if (await r.domains.findLiveByHostname(hostname)) throw claimedError(hostname);
    try {
      await r.domains.insert(domain, checks);
    } catch (err) {
      if (err instanceof UniqueViolation) throw claimedError(hostname);
      throw err;
    }
    await r.outbox.add('domain.check.requested', { domain_id: domain.id, application_id: application.id, reason: 'created' });
    await r.outbox.add('domain.changed', { domain_id: domain.id, hostname, application_id: application.id, change: 'created' });
    await enforceLimits(r, application, ctx.deploymentDomainLimit);
  });
  ctx.afterCommit();
  return toDomainResource(domain, checks, ctx.edgeTarget);
}
