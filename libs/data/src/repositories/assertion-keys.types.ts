// Keys that sign the edge's assertions to origins (migration 1760000000100).

export interface AssertionKeyRow {
  kid: string; // 'ak_' + 16 hex
  applicationId: string;
  secretSealed: string; // the secret sealed with DATA_ENCRYPTION_KEY for SEAL_PURPOSES.assertionKey and the kid (libs/core secret-box)
  createdAt: Date; // strictly increasing per application, so "the newest" is never a tie
  revokedAt: Date | null;
}

export interface AssertionKeysRepository {
  list(applicationId: string): Promise<AssertionKeyRow[]>; // oldest first
  find(applicationId: string, kid: string): Promise<AssertionKeyRow | null>;
  insert(row: AssertionKeyRow): Promise<void>;
  revoke(applicationId: string, kid: string, at: Date): Promise<void>;
}
