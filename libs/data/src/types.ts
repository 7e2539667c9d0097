// Row shapes and repository contracts of the shared schema. Every tenant-owned
// query takes the application id as its first argument.

export type DatabaseKind = 'postgres' | 'sqlite';

export type DomainStatus = 'pending_dns' | 'ready' | 'attention_required' | 'deleting';
export type CheckType = 'ownership' | 'routing' | 'certificate' | 'origin';
export type CheckStatus = 'pending' | 'passing' | 'failing';
export type ApplicationStatus = 'active' | 'suspended';
export type MetadataValue = string | number | boolean | null;

export interface ApplicationLimits {
  live_domains: number;
  api_requests_per_minute: number;
  proxied_requests_per_minute: number;
  proxied_requests_per_second: number;
  credentials: number;
  webhook_subscriptions: number;
  fair_use_bytes_per_month: number;
}

export interface ApplicationRow {
  id: string; // uuid, internal; the API names applications by slug
  slug: string;
  name: string;
  status: ApplicationStatus;
  plan: string;
  contactEmail: string | null;
  limits: ApplicationLimits;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

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

export interface DomainRow {
  id: string;
  applicationId: string;
  hostname: string;
  reference: string;
  status: DomainStatus;
  challengeToken: string;
  metadata: Record<string, MetadataValue>;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  nextCheckAt: Date | null; // when the scheduler should check it again
}

export interface CheckRow {
  domainId: string;
  type: CheckType;
  status: CheckStatus;
  errorCode: string | null;
  message: string | null;
  observedAt: Date | null;
  nextCheckAt: Date | null;
}

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

export interface OutboxRow {
  id: string; // uuid
  seq: number; // insertion order (autoincrement)
  routingKey: string;
  payload: unknown; // JSON
  createdAt: Date;
  publishedAt: Date | null;
  attempts: number;
}

export interface DomainListFilter {
  reference?: string;
  status?: DomainStatus;
  includeDeleted: boolean;
  limit: number;
  offset: number;
}

export interface ApplicationsRepository {
  listLive(): Promise<ApplicationRow[]>; // oldest first
  findLiveBySlug(slug: string): Promise<ApplicationRow | null>;
  findById(id: string): Promise<ApplicationRow | null>; // deleted included
  insert(row: ApplicationRow): Promise<void>; // unique live slug: throws UniqueViolation
  update(id: string, patch: Partial<Omit<ApplicationRow, 'id'>>): Promise<void>;
  /** Row lock (SELECT … FOR UPDATE on PostgreSQL; no-op on SQLite, whose transactions are serialized). */
  lock(id: string): Promise<void>;
  /**
   * Deployment-wide lock for the deployment live-domain limit (PostgreSQL: a
   * transaction-scoped advisory lock; SQLite: no-op). Take it after `lock(id)`.
   */
  lockDeployment(): Promise<void>;
}

export interface CredentialsRepository {
  findByHash(keyHash: string): Promise<CredentialRow | null>;
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

export interface DomainsRepository {
  /** Inserts the domain and its four check rows. Live-hostname clash: throws UniqueViolation. */
  insert(domain: DomainRow, checks: CheckRow[]): Promise<void>;
  find(applicationId: string, id: string, includeDeleted: boolean): Promise<DomainRow | null>;
  list(applicationId: string, filter: DomainListFilter): Promise<DomainRow[]>; // created_at, id ascending
  checksOf(domainIds: string[]): Promise<CheckRow[]>;
  countLive(applicationId: string): Promise<number>;
  countLiveAll(): Promise<number>;
  findLiveByHostname(hostname: string): Promise<DomainRow | null>;
  update(applicationId: string, id: string, patch: Partial<Omit<DomainRow, 'id' | 'applicationId'>>): Promise<void>;
  /** Every live domain of the application (for application deletion). */
  listLive(applicationId: string): Promise<DomainRow[]>;
}

export interface IdempotencyRepository {
  find(applicationId: string, key: string): Promise<IdempotencyRow | null>;
  /** Inserts an in_progress row; returns false when the key already exists (unexpired rows are never replaced). */
  tryInsert(row: IdempotencyRow): Promise<boolean>;
  complete(applicationId: string, key: string, status: number, body: string): Promise<void>;
  delete(applicationId: string, key: string): Promise<void>;
  deleteExpired(now: Date): Promise<number>;
}

export interface OutboxRepository {
  add(routingKey: string, payload: unknown): Promise<OutboxRow>;
  /** Oldest unpublished rows first. */
  unpublished(limit: number): Promise<OutboxRow[]>;
  markPublished(ids: string[], at: Date): Promise<void>;
  recordFailedAttempt(ids: string[]): Promise<void>;
  oldestUnpublishedAt(): Promise<Date | null>;
  /** Every row, in insertion order (tests and diagnostics). */
  all(routingKey?: string): Promise<OutboxRow[]>;
}

export interface SettingsRepository {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
}

/** Fixed-window counters shared by every process that uses the database. */
export interface RateCountersRepository {
  /**
   * Adds one hit to `key` in the window of `windowSeconds` that contains `now`,
   * returning the count after the hit and when the window ends.
   */
  hit(key: string, windowSeconds: number, now: Date): Promise<{ count: number; resetAt: Date }>;
  /** Current count without adding a hit. */
  peek(key: string, windowSeconds: number, now: Date): Promise<{ count: number; resetAt: Date }>;
  deleteExpired(now: Date): Promise<number>;
}

/** Repositories bound to one unit of work (a transaction, or the plain connection for reads). */
export interface Repositories {
  applications: ApplicationsRepository;
  credentials: CredentialsRepository;
  domains: DomainsRepository;
  idempotency: IdempotencyRepository;
  outbox: OutboxRepository;
  settings: SettingsRepository;
  rateCounters: RateCountersRepository;
}

export interface DataStore {
  readonly kind: DatabaseKind;
  /** One transaction. On SQLite all units of work are serialized in-process. */
  transaction<T>(fn: (repos: Repositories) => Promise<T>): Promise<T>;
  /** Work outside an explicit transaction (single statements). */
  run<T>(fn: (repos: Repositories) => Promise<T>): Promise<T>;
  migrate(): Promise<string[]>; // names of migrations applied
  pendingMigrations(): Promise<string[]>;
  /** Runs the `down` of the newest applied migration; its name, or null when none is applied. */
  revertLastMigration(): Promise<string | null>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
