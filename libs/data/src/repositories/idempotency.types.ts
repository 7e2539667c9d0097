// Idempotency keys of domain registrations: the stored answer to replay.

export interface IdempotencyRow {
  applicationId: string;
  key: string;
  requestHash: string;
  state: 'in_progress' | 'completed';
  responseStatus: number | null;
  responseBody: string | null; // JSON text
  createdAt: Date;
  expiresAt: Date;
}

export interface IdempotencyRepository {
  find(applicationId: string, key: string): Promise<IdempotencyRow | null>;
  /** Inserts an in_progress row; returns false when the key already exists (unexpired rows are never replaced). */
  tryInsert(row: IdempotencyRow): Promise<boolean>;
  complete(applicationId: string, key: string, status: number, body: string): Promise<void>;
  delete(applicationId: string, key: string): Promise<void>;
}
