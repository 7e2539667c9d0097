import type { EntityManager, Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { queryRows } from '../sql';
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

export class TypeOrmIdempotencyRepository implements IdempotencyRepository {
  private readonly rows: Repository<IdempotencyRow>;

  constructor(private readonly manager: EntityManager) {
    this.rows = manager.getRepository<IdempotencyRow>(ENTITY.idempotencyKey);
  }

  find(applicationId: string, key: string): Promise<IdempotencyRow | null> {
    return this.rows.findOneBy({ applicationId, key });
  }

  async tryInsert(row: IdempotencyRow): Promise<boolean> {
    const written = await queryRows(this.manager, INSERT_OR_REPLACE_EXPIRED, { ...row });
    return written.length === 1;
  }

  async complete(applicationId: string, key: string, status: number, body: string): Promise<void> {
    await this.rows.update({ applicationId, key }, { state: 'completed', responseStatus: status, responseBody: body });
  }

  async delete(applicationId: string, key: string): Promise<void> {
    await this.rows.delete({ applicationId, key });
  }
}
