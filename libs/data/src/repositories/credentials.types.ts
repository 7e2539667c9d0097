// The credentials aggregate: API keys (only their hash is stored) and the
// authentication of one request.
import type { ApplicationRow } from './applications.types';

export interface CredentialRow {
  id: string;
  applicationId: string;
  name: string | null;
  prefix: string; // first 8 characters of the key, for display
  keyHash: string; // hex sha-256 of the whole key
  revokedAt: Date | null;
  expiresAt: Date | null; // set by rotation: old key valid for 24 h more
  replacedById: string | null; // set on the old credential by rotation
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface AuthenticationInput {
  /** SHA-256 of the presented key. */
  keyHash: string;
  now: Date;
  /** The rate counter of failed credentials from the client address. */
  throttleKey: string;
  /** Failures in a window at which the address is throttled. */
  throttleLimit: number;
  /** The budget counter is `<budgetPrefix><credential id>`. */
  budgetPrefix: string;
  windowSeconds: number;
}

export interface Authentication {
  /** Failures counted for the client address in the current window. */
  failures: number;
  /** The credential (not revoked, not expired) and its live application. */
  found: { credential: CredentialRow; application: ApplicationRow } | null;
  /** The credential's budget after this request's hit; null when nothing was counted. */
  budget: { count: number; resetAt: Date } | null;
}

export interface CredentialsRepository {
  findByHash(keyHash: string): Promise<CredentialRow | null>;
  /**
   * What authenticating one request reads and writes (one statement on
   * PostgreSQL): the failures counted for the client address, the valid
   * credential with the key hash and its live application, and — for a valid
   * credential from an address under `throttleLimit` failures — one hit on the
   * credential's request budget. Both windows are clock-aligned.
   */
  authenticate(input: AuthenticationInput): Promise<Authentication>;
  list(applicationId: string): Promise<CredentialRow[]>; // oldest first
  find(applicationId: string, id: string): Promise<CredentialRow | null>;
  insert(row: CredentialRow): Promise<void>;
  update(applicationId: string, id: string, patch: Partial<Omit<CredentialRow, 'id' | 'applicationId'>>): Promise<void>;
  delete(applicationId: string, id: string): Promise<void>;
  /** Active = not revoked and (no expiry or expiry after `now`). */
  countActive(applicationId: string, now: Date): Promise<number>;
  revokeAll(applicationId: string, at: Date): Promise<void>;
  touchLastUsed(id: string, at: Date): Promise<void>;
}
