import { IsNull, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import { nullableTextFromDb, nullableTimestampFromDb, numberFromDb, queryPrepared, queryRows, timestampFromDb, type RawRow } from '../sql';
import type { ApplicationStatus, Limits } from '@cds/core';
import type { DatabaseKind } from '../database-url';
import type { ApplicationRow } from './applications.types';
import type { Authentication, AuthenticationInput, CredentialRow, CredentialsRepository } from './credentials.types';
import { alignedHit, windowOf } from './rate-counters.repository';
import { updateWhere } from './write-helpers';

/** Columns of a credential and its application, prefixed c_ and a_, as `authenticate` reads them. */
const FOUND_COLUMNS = `c.id AS c_id, c.application_id AS c_application_id, c.name AS c_name, c.prefix AS c_prefix,
  c.key_hash AS c_key_hash, c.revoked_at AS c_revoked_at, c.expires_at AS c_expires_at, c.replaced_by_id AS c_replaced_by_id,
  c.created_at AS c_created_at, c.last_used_at AS c_last_used_at,
  a.slug AS a_slug, a.name AS a_name, a.status AS a_status, a.plan AS a_plan, a.contact_email AS a_contact_email, a.limits AS a_limits,
  a.created_at AS a_created_at, a.updated_at AS a_updated_at, a.live_domains AS a_live_domains`;

/** The valid credential with the key hash, and its live application. */
const FOUND = `SELECT ${FOUND_COLUMNS} FROM credentials c JOIN applications a ON a.id = c.application_id AND a.deleted_at IS NULL
  WHERE c.key_hash = :keyHash AND c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > :now)`;

/** Failures counted for the client address in the current window. */
const FAILURES = `SELECT "count" FROM rate_counters WHERE "key" = :throttleKey AND window_start >= :windowStart`;

/**
 * PostgreSQL: the whole of `authenticate` as one statement. The budget hit is
 * written only for a valid credential from an address that is not throttled.
 */
const AUTHENTICATE = `
  WITH found AS (${FOUND}),
  failures AS (${FAILURES}),
  budget AS (
    ${alignedHit(`SELECT CAST(:budgetPrefix AS text) || CAST(found.c_id AS text), CAST(:windowStart AS timestamptz), CAST(:resetAt AS timestamptz), CAST(:amount AS integer) FROM found
      WHERE NOT EXISTS (SELECT 1 FROM failures WHERE "count" >= :throttleLimit)`)}
  )
  SELECT found.*, (SELECT "count" FROM failures) AS failures, budget."count" AS budget_count, budget.reset_at AS budget_reset_at
  FROM (SELECT 1 AS one) AS request LEFT JOIN found ON true LEFT JOIN budget ON true`;

function foundFromDb(raw: RawRow): { credential: CredentialRow; application: ApplicationRow } {
  const applicationId = String(raw.c_application_id);
  return {
    credential: {
      id: String(raw.c_id), applicationId, name: nullableTextFromDb(raw.c_name), prefix: String(raw.c_prefix), keyHash: String(raw.c_key_hash),
      revokedAt: nullableTimestampFromDb(raw.c_revoked_at), expiresAt: nullableTimestampFromDb(raw.c_expires_at), replacedById: nullableTextFromDb(raw.c_replaced_by_id),
      createdAt: timestampFromDb(raw.c_created_at), lastUsedAt: nullableTimestampFromDb(raw.c_last_used_at),
    },
    application: {
      id: applicationId, slug: String(raw.a_slug), name: String(raw.a_name), status: raw.a_status as ApplicationStatus, plan: String(raw.a_plan),
      contactEmail: nullableTextFromDb(raw.a_contact_email), limits: JSON.parse(String(raw.a_limits)) as Limits,
      createdAt: timestampFromDb(raw.a_created_at), updatedAt: timestampFromDb(raw.a_updated_at), deletedAt: null, liveDomains: numberFromDb(raw.a_live_domains),
    },
  };
}

export class TypeOrmCredentialsRepository implements CredentialsRepository {
  private readonly rows: Repository<CredentialRow>;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.rows = manager.getRepository<CredentialRow>(ENTITY.credential);
  }

  findByHash(keyHash: string): Promise<CredentialRow | null> {
    return this.rows.findOneBy({ keyHash });
  }

  authenticate(input: AuthenticationInput): Promise<Authentication> {
    return this.kind === 'postgres' ? this.authenticateInOneStatement(input) : this.authenticateStepByStep(input);
  }

  list(applicationId: string): Promise<CredentialRow[]> {
    return this.rows.find({ where: { applicationId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  find(applicationId: string, id: string): Promise<CredentialRow | null> {
    return this.rows.findOneBy({ applicationId, id });
  }

  async insert(row: CredentialRow): Promise<void> {
    await guardUnique(this.rows.insert(row));
  }

  update(applicationId: string, id: string, patch: Partial<Omit<CredentialRow, 'id' | 'applicationId'>>): Promise<void> {
    return updateWhere(this.rows, { applicationId, id }, patch);
  }

  async delete(applicationId: string, id: string): Promise<void> {
    await this.rows.delete({ applicationId, id });
  }

  countActive(applicationId: string, now: Date): Promise<number> {
    return this.rows
      .createQueryBuilder('c')
      .where('c.application_id = :applicationId', { applicationId })
      .andWhere('c.revoked_at IS NULL')
      .andWhere('(c.expires_at IS NULL OR c.expires_at > :now)', { now })
      .getCount();
  }

  async revokeAll(applicationId: string, at: Date): Promise<void> {
    await this.rows.update({ applicationId, revokedAt: IsNull() }, { revokedAt: at });
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.rows.update({ id }, { lastUsedAt: at });
  }

  private async authenticateInOneStatement(input: AuthenticationInput): Promise<Authentication> {
    const [raw] = await queryPrepared<RawRow>(this.manager, AUTHENTICATE, parameters(input));
    if (!raw) throw new Error('The authentication query returned no row.');
    return {
      failures: raw.failures === null || raw.failures === undefined ? 0 : numberFromDb(raw.failures),
      found: raw.c_id === null || raw.c_id === undefined ? null : foundFromDb(raw),
      budget: raw.budget_count === null || raw.budget_count === undefined ? null : { count: numberFromDb(raw.budget_count), resetAt: timestampFromDb(raw.budget_reset_at) },
    };
  }

  /** SQLite: the same reads and the same conditional hit, one statement each. */
  private async authenticateStepByStep(input: AuthenticationInput): Promise<Authentication> {
    const params = parameters(input);
    const [failed] = await queryRows<RawRow>(this.manager, FAILURES, params);
    const failures = failed ? numberFromDb(failed.count) : 0;
    const [raw] = await queryRows<RawRow>(this.manager, FOUND, params);
    const found = raw ? foundFromDb(raw) : null;
    if (!found || failures >= input.throttleLimit) return { failures, found, budget: null };
    const [hit] = await queryRows<RawRow>(this.manager, alignedHit('VALUES (:budgetKey, :windowStart, :resetAt, :amount)'), {
      ...params, budgetKey: `${input.budgetPrefix}${found.credential.id}`,
    });
    if (!hit) throw new Error('Rate counter upsert returned no row.');
    return { failures, found, budget: { count: numberFromDb(hit.count), resetAt: timestampFromDb(hit.reset_at) } };
  }
}

function parameters(input: AuthenticationInput): Record<string, unknown> {
  return {
    keyHash: input.keyHash, now: input.now, throttleKey: input.throttleKey, throttleLimit: input.throttleLimit,
    budgetPrefix: input.budgetPrefix, amount: 1, ...windowOf(input.windowSeconds, input.now),
  };
}
