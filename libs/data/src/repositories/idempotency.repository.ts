import type { EntityManager, Repository } from 'typeorm';
import type { DatabaseKind } from '../database-url';
import { ENTITY } from '../entities';
import { queryRows, updateReturning } from '../sql';
import type { IdempotencyRepository, IdempotencyRow } from './idempotency.types';

// One atomic statement: insert, or take over the key when the row there has expired
// (expires_at <= the new row's created_at); a live row is left alone and nothing is returned.
const INSERT_OR_REPLACE_EXPIRED = `
  INSERT INTO idempotency_keys (application_id, "key", request_hash, state, response_status, response_body, created_at, expires_at)
  VALUES (:applicationId, :key, :requestHash, :state, :responseStatus, :responseBody, :createdAt, :expiresAt)
  ON CONFLICT (application_id, "key") DO UPDATE SET
    request_hash = excluded.request_hash,
    state = excluded.state,
    response_status = excluded.response_status,
    response_body = excluded.response_body,
    created_at = excluded.created_at,
    expires_at = excluded.expires_at
  WHERE idempotency_keys.expires_at <= excluded.created_at
  RETURNING "key"`;

// A claim is named by its created_at: every write of a claim's holder names it,
// so a write of a claim that was taken over changes nothing.
const OF_CLAIM = 'application_id = :applicationId AND "key" = :key AND created_at = :claimedAt';

// Compare-and-swap: only the claim read as abandoned is replaced; of two takers, the second finds the new claim.
const TAKE_OVER = `UPDATE idempotency_keys SET request_hash = :requestHash, state = :state, response_status = :responseStatus,
  response_body = :responseBody, created_at = :createdAt, expires_at = :expiresAt
  WHERE ${OF_CLAIM} AND state = 'in_progress'`;

const COMPLETE = `UPDATE idempotency_keys SET state = 'completed', response_status = :status, response_body = :body
  WHERE ${OF_CLAIM} AND state = 'in_progress'`;

export class TypeOrmIdempotencyRepository implements IdempotencyRepository {
  private readonly rows: Repository<IdempotencyRow>;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.rows = manager.getRepository<IdempotencyRow>(ENTITY.idempotencyKey);
  }

  find(applicationId: string, key: string): Promise<IdempotencyRow | null> {
    return this.rows.findOneBy({ applicationId, key });
  }

  async tryInsert(row: IdempotencyRow): Promise<boolean> {
    const written = await queryRows(this.manager, INSERT_OR_REPLACE_EXPIRED, { ...row });
    return written.length === 1;
  }

  async takeOver(row: IdempotencyRow, claimedAt: Date): Promise<boolean> {
    return (await updateReturning(this.manager, this.kind, TAKE_OVER, '"key"', { ...row, claimedAt })).length === 1;
  }

  async complete(applicationId: string, key: string, claimedAt: Date, status: number, body: string): Promise<boolean> {
    return (await updateReturning(this.manager, this.kind, COMPLETE, '"key"', { applicationId, key, claimedAt, status, body })).length === 1;
  }

  async delete(applicationId: string, key: string, claimedAt: Date): Promise<void> {
    await queryRows(this.manager, `DELETE FROM idempotency_keys WHERE ${OF_CLAIM}`, { applicationId, key, claimedAt });
  }
}
