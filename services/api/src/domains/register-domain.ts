import { randomUUID } from 'node:crypto';
import { AppError, canonicalHostname, CHECK_REASONS, CHECK_TYPES, DOMAIN_CHANGES, generateChallengeToken, normalizeHostname, ROUTING_KEYS, toDomainResource, type DomainResource } from '@cds/core';
import { UniqueViolation, type ApplicationRow, type CheckRow, type DomainRow, type OutboxMessage, type RegisterOutcome, type Repositories } from '@cds/data';
import type { UseCaseContext } from '../shared/context';
import type { CreateDomainBody } from './domains.schema';

const MAX_REFERENCE = 255;

function claimedError(hostname: string): AppError {
  return new AppError('hostname_already_claimed', `The hostname ${hostname} is already registered and live.`, { hostname });
}

function limitError(scope: 'application' | 'deployment', limit: number, live: number): AppError {
  const owner = scope === 'application' ? 'The application' : 'The deployment';
  return new AppError('domain_limit_reached', `${owner} has reached its limit of ${limit} live domains.`, { scope, limit, live });
}

function redirectError(message: string): AppError {
  return new AppError('validation_error', message, {
    field: 'redirect_to',
    errors: [{ location: 'body', field: 'redirect_to', message, type: 'redirect_to.not_found' }],
  });
}

/**
 * `redirect_to` (DECISIONS §12): the hostname of another live domain of the
 * same application, normalized as stored; a domain of another application is
 * answered exactly as a name nobody registered.
 */
async function redirectTarget(ctx: UseCaseContext, application: ApplicationRow, hostname: string, input: string | null | undefined): Promise<string | null> {
  if (input === undefined || input === null) return null;
  let target: string;
  try {
    target = canonicalHostname(input);
  } catch (err) {
    if (err instanceof AppError) throw redirectError(`redirect_to is no hostname: ${err.message}`);
    throw err;
  }
  if (target === hostname) throw redirectError('redirect_to must name another domain than the one being created.');
  const found = await ctx.store.run((r) => r.domains.findLiveByHostname(target));
  if (found?.applicationId !== application.id) {
    throw redirectError(`redirect_to: no live domain of this application has the hostname ${target}.`);
  }
  return target;
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
export async function registerDomain(ctx: UseCaseContext, application: ApplicationRow, input: CreateDomainBody, id: string = randomUUID()): Promise<DomainResource> {
  const referenceLength = [...input.reference].length;
  if (referenceLength === 0 || referenceLength > MAX_REFERENCE) {
    throw new AppError('invalid_reference', `reference must be 1 to ${MAX_REFERENCE} characters (got ${referenceLength}).`, { field: 'reference' });
  }
  // PostgreSQL text cannot hold U+0000; refuse it on every database alike.
  if (input.reference.includes('\u0000')) {
    throw new AppError('invalid_reference', 'reference must not contain the NUL character (U+0000).', { field: 'reference' });
  }
  const hostname = normalizeHostname(input.hostname, { edgeTarget: ctx.edgeTarget, apexDomains: ctx.edgeAddresses.length > 0 });
  const redirectTo = await redirectTarget(ctx, application, hostname, input.redirect_to);

  const now = ctx.now();
  const domain: DomainRow = {
    id,
    applicationId: application.id,
    hostname,
    reference: input.reference,
    status: 'pending_dns',
    challengeToken: generateChallengeToken(),
    metadata: input.metadata ?? {},
    redirectTo,
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
  return toDomainResource(domain, checks, ctx);
}
