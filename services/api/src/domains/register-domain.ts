import { randomUUID } from 'node:crypto';
import { AppError, CHECK_REASONS, CHECK_TYPES, DOMAIN_CHANGES, generateChallengeToken, normalizeHostname, ROUTING_KEYS, toDomainResource, type DomainResource } from '@cds/core';
import { UniqueViolation, type ApplicationRow, type CheckRow, type DomainRow, type MetadataValue, type OutboxMessage, type RegisterOutcome, type Repositories } from '@cds/data';
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

function limitError(scope: 'application' | 'deployment', limit: number, live: number): AppError {
  const owner = scope === 'application' ? 'The application' : 'The deployment';
  return new AppError('domain_limit_reached', `${owner} has reached its limit of ${limit} live domains.`, { scope, limit, live });
}

/**
 * The deployment-wide limit, when one is set: creates of every application
 * take turns on one advisory lock and count all live domains, so it costs a
 * transaction of several statements; without it a create is one statement.
 */
async function enforceDeploymentLimit(r: Repositories, limit: number): Promise<void> {
  await r.applications.lockDeployment();
  const live = await r.domains.countLiveAll();
  if (live >= limit) throw limitError('deployment', limit, live);
}

/** Registers the domain under `id` (a fresh UUID, or the one an Idempotency-Key's claim derives). */
export async function registerDomain(ctx: UseCaseContext, application: ApplicationRow, body: unknown, id: string = randomUUID()): Promise<DomainResource> {
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
    id,
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

  const messages: OutboxMessage[] = [
    { routingKey: ROUTING_KEYS.domainCheckRequested, payload: { domain_id: domain.id, application_id: application.id, reason: CHECK_REASONS.created } },
    { routingKey: ROUTING_KEYS.domainChanged, payload: { domain_id: domain.id, hostname, application_id: application.id, change: DOMAIN_CHANGES.created } },
  ];
  const limit = application.limits.live_domains;
  const register = (r: Repositories) => r.domains.register(domain, checks, { limit, messages });
  let outcome: RegisterOutcome;
  try {
    outcome = ctx.deploymentDomainLimit > 0
      ? await ctx.store.transaction(async (r) => {
          await enforceDeploymentLimit(r, ctx.deploymentDomainLimit);
          return register(r);
        })
      : await ctx.store.run(register);
  } catch (err) {
    if (err instanceof UniqueViolation) throw claimedError(hostname);
    throw err;
  }
  if (!outcome.admitted) {
    // A claimed hostname is the better answer when both apply.
    if (await ctx.store.run((r) => r.domains.findLiveByHostname(hostname))) throw claimedError(hostname);
    throw limitError('application', limit, outcome.live);
  }
  ctx.afterCommit();
  return toDomainResource(domain, checks, ctx.edgeTarget);
}
