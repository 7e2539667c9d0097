// Idempotency keys of domain registrations: the stored answer to replay.

export interface IdempotencyRow {
  applicationId: string;
  key: string;
  requestHash: string;
  state: 'in_progress' | 'completed';
  responseStatus: number | null;
  responseBody: string | null; // JSON text
  createdAt: Date; // also names the claim: the writes of the request holding it say which claim they belong to
  expiresAt: Date;
}

export interface IdempotencyRepository {
  find(applicationId: string, key: string): Promise<IdempotencyRow | null>;
  /** Inserts an in_progress row; returns false when the key already exists (unexpired rows are never replaced). */
  tryInsert(row: IdempotencyRow): Promise<boolean>;
  /**
   * Replaces the in_progress claim made at `claimedAt` by `row`, in one
   * compare-and-swap; false when the key no longer holds that claim (another
   * request took it over first, or it completed).
   */
  takeOver(row: IdempotencyRow, claimedAt: Date): Promise<boolean>;
  /** Stores the answer of the in_progress claim made at `claimedAt`; false (nothing written) when the key no longer holds it. */
  complete(applicationId: string, key: string, claimedAt: Date, status: number, body: string): Promise<boolean>;
  /** Deletes the claim made at `claimedAt`; a key that holds another claim is left alone. */
  delete(applicationId: string, key: string, claimedAt: Date): Promise<void>;
}
