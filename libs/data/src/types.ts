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
  /** How many of its domains are live: kept by DomainsRepository.register and markDeleted, never written directly. */
  liveDomains: number;
}

/** An application as it is created: it has no live domains yet. */
export type NewApplicationRow = Omit<ApplicationRow, 'liveDomains'>;

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
  insert(row: NewApplicationRow): Promise<void>; // unique live slug: throws UniqueViolation
  update(id: string, patch: Partial<Omit<ApplicationRow, 'id' | 'liveDomains'>>): Promise<void>;
  /** Row lock (SELECT … FOR UPDATE on PostgreSQL; no-op on SQLite, whose transactions are serialized). */
  lock(id: string): Promise<void>;
  /**
   * Deployment-wide lock for the deployment live-domain limit (PostgreSQL: a
   * transaction-scoped advisory lock; SQLite: no-op). Take it after `lock(id)`.
   */
  lockDeployment(): Promise<void>;
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

/** A message written to the outbox with the change it announces. */
export interface OutboxMessage {
  routingKey: string;
  payload: unknown;
}

/** Whether `register` wrote the domain; when not, the application's live domains at that moment. */
export type RegisterOutcome = { admitted: true } | { admitted: false; live: number };

export interface DomainsRepository {
  /**
   * Registers a domain in one atomic write: the domain, its check rows and the
   * outbox messages that announce it, admitted only while its application has
   * fewer than `limit` live domains (the application's count of live domains
   * goes up with it). Live-hostname clash: throws UniqueViolation.
   */
  register(domain: DomainRow, checks: CheckRow[], opts: { limit: number; messages: OutboxMessage[] }): Promise<RegisterOutcome>;
  /** `register` without a limit or messages (fixtures and imports). */
  insert(domain: DomainRow, checks: CheckRow[]): Promise<void>;
  /**
   * Deletes a live domain: status `deleting`, `deleted_at` set (its hostname is
   * free at once), counted out of its application's live domains. Callers lock
   * the application first, the order creates take. False when it was not live.
   */
  markDeleted(applicationId: string, id: string, at: Date): Promise<boolean>;
  find(applicationId: string, id: string, includeDeleted: boolean): Promise<DomainRow | null>;
  list(applicationId: string, filter: DomainListFilter): Promise<DomainRow[]>; // created_at, id ascending
  checksOf(domainIds: string[]): Promise<CheckRow[]>;
  /** Live domains of the application, counted in the domains table (ApplicationRow.liveDomains keeps the same number). */
  countLive(applicationId: string): Promise<number>;
  countLiveAll(): Promise<number>;
  findLiveByHostname(hostname: string): Promise<DomainRow | null>;
  update(applicationId: string, id: string, patch: Partial<Omit<DomainRow, 'id' | 'applicationId' | 'deletedAt'>>): Promise<void>;
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
  /** Unpublished rows: how many, and when the oldest was written (null when none). */
  backlog(): Promise<{ count: number; oldestAt: Date | null }>;
  /** Every row, in insertion order (tests and diagnostics). */
  all(routingKey?: string): Promise<OutboxRow[]>;
}

export interface SettingsRepository {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  /** Writes the key only when it is absent, atomically across processes; true when this call wrote it. */
  setIfAbsent(key: string, value: string): Promise<boolean>;
  /** Replaces the value only while it is still `expected`, atomically across processes; true when this call replaced it. */
  replaceIf(key: string, expected: string, value: string): Promise<boolean>;
  /** Removes the key (no-op when absent). */
  delete(key: string): Promise<void>;
  /** Removes the key only while its value is still `expected`; true when this call removed it. */
  deleteIf(key: string, expected: string): Promise<boolean>;
}

/** Fixed-window counters shared by every process that uses the database. */
export interface RateCountersRepository {
  /**
   * Adds `amount` hits (default 1) to `key` in the window of `windowSeconds` that contains `now`
   * (clock-aligned; `anchored`: a window that starts at its first hit),
   * returning the count after the hit and when the window ends.
   */
  hit(key: string, windowSeconds: number, now: Date, opts?: { anchored?: boolean; amount?: number }): Promise<{ count: number; resetAt: Date }>;
  /** Current count without adding a hit. */
  peek(key: string, windowSeconds: number, now: Date): Promise<{ count: number; resetAt: Date }>;
  deleteExpired(now: Date): Promise<number>;
}

/** Read-only probes for `cdctl doctor`, including tables that later versions add. */
export interface DiagnosticsRepository {
  /** The database server's clock. */
  now(): Promise<Date>;
  /** Certificates whose `not_after` is before `at`; null when the `certificates` table does not exist. */
  certificatesExpiringBefore(at: Date): Promise<number | null>;
  /** Pending webhook deliveries and the earliest `next_attempt_at`; null when `webhook_deliveries` does not exist. */
  webhookBacklog(): Promise<{ pending: number; oldestDueAt: Date | null } | null>;
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
  diagnostics: DiagnosticsRepository;
  origins: OriginsRepository;
  assertionKeys: AssertionKeysRepository;
  traffic: TrafficRepository;
  webhookSubscriptions: WebhookSubscriptionsRepository;
  webhookDeliveries: WebhookDeliveriesRepository;
  checkRuns: CheckRunsRepository;
  certificates: CertificatesRepository;
  acmeChallenges: AcmeChallengesRepository;
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

// Origins, assertion keys and traffic (migration 1760000000100).

export type OriginStatus = 'pending_verification' | 'verified' | 'active' | 'retired';

export interface OriginRow {
  id: string;
  applicationId: string;
  url: string;
  healthPath: string; // starts with '/'
  status: OriginStatus; // at most one 'active' per application (unique index)
  lastVerifiedAt: Date | null;
  lastError: string | null; // why the last verification failed; null after a success
  createdAt: Date;
  updatedAt: Date;
}

export interface AssertionKeyRow {
  kid: string; // 'ak_' + 16 hex
  applicationId: string;
  secretSealed: string; // the secret sealed with DATA_ENCRYPTION_KEY (libs/core secret-box)
  createdAt: Date; // strictly increasing per application, so "the newest" is never a tie
  revokedAt: Date | null;
}

export interface TrafficDayRow {
  applicationId: string;
  day: string; // 'YYYY-MM-DD', UTC
  requests: number;
  responseBytes: number;
}

export interface OriginsRepository {
  list(applicationId: string): Promise<OriginRow[]>; // oldest first
  find(applicationId: string, id: string): Promise<OriginRow | null>;
  findActive(applicationId: string): Promise<OriginRow | null>;
  insert(row: OriginRow): Promise<void>;
  update(applicationId: string, id: string, patch: Partial<Omit<OriginRow, 'id' | 'applicationId'>>): Promise<void>;
  delete(applicationId: string, id: string): Promise<void>;
}

export interface AssertionKeysRepository {
  list(applicationId: string): Promise<AssertionKeyRow[]>; // oldest first
  find(applicationId: string, kid: string): Promise<AssertionKeyRow | null>;
  insert(row: AssertionKeyRow): Promise<void>;
  revoke(applicationId: string, kid: string, at: Date): Promise<void>;
}

/** Proxied requests and response bytes per application and UTC day. */
export interface TrafficRepository {
  /** Adds to the day's counters (creating the row), atomically for concurrent edges. */
  addTraffic(applicationId: string, day: string, requests: number, bytes: number): Promise<void>;
  /** Stored days from `fromDay` to `toDay` inclusive, oldest first; days without traffic have no row. */
  range(applicationId: string, fromDay: string, toDay: string): Promise<TrafficDayRow[]>;
}

// Webhook subscriptions, their secrets, deliveries and attempts (migration 1760000000200).

export type WebhookSubscriptionStatus = 'active' | 'revoked';
export type WebhookDeliveryState = 'pending' | 'delivered' | 'abandoned';

export interface WebhookSubscriptionRow {
  id: string;
  applicationId: string;
  url: string;
  events: string[];
  status: WebhookSubscriptionStatus;
  createdAt: Date;
  updatedAt: Date;
  revokedAt: Date | null;
}

export interface WebhookSecretRow {
  id: string;
  subscriptionId: string;
  secretSealed: string; // sealed with DATA_ENCRYPTION_KEY (libs/core secret-box): it must be recoverable to sign
  createdAt: Date;
  expiresAt: Date | null; // null while current; a rotation sets it to the rotation time + 24 h
}

export interface WebhookDeliveryRow {
  id: string;
  applicationId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  payload: string; // the exact JSON body that is signed and sent
  state: WebhookDeliveryState;
  attempts: number;
  nextAttemptAt: Date | null; // pending: when it is due (while an attempt runs, when its lease ends)
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  replayOf: string | null; // the delivery this one replays; null for the event's original delivery
  leaseId: string | null; // set while a dispatcher runs an attempt
}

export interface WebhookAttemptRow {
  id: string;
  deliveryId: string;
  attempt: number; // 1..8
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null; // null when it delivered
}

export interface WebhookDeliveryFilter {
  state?: WebhookDeliveryState;
  limit: number;
  offset: number;
}

/** The outcome of one attempt, written only while the attempt's lease still holds. */
export interface WebhookAttemptResult {
  leaseId: string;
  attempt: WebhookAttemptRow;
  /** State after the attempt (a delivery revoked meanwhile stays `abandoned`). */
  state: WebhookDeliveryState;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

export interface WebhookSubscriptionsRepository {
  /** The subscription and its first secret. */
  insert(subscription: WebhookSubscriptionRow, secret: WebhookSecretRow): Promise<void>;
  list(applicationId: string): Promise<WebhookSubscriptionRow[]>; // oldest first, revoked included
  find(applicationId: string, id: string): Promise<WebhookSubscriptionRow | null>;
  /** Row lock (SELECT … FOR UPDATE on PostgreSQL; no-op on SQLite). */
  lock(applicationId: string, id: string): Promise<void>;
  countActive(applicationId: string): Promise<number>;
  update(applicationId: string, id: string, patch: Partial<Pick<WebhookSubscriptionRow, 'status' | 'updatedAt' | 'revokedAt'>>): Promise<void>;
  /** Active subscriptions of these applications; on PostgreSQL FOR SHARE, so a revoke running now is waited for. */
  activeForFanOut(applicationIds: string[]): Promise<WebhookSubscriptionRow[]>;
  /** Subscriptions by id, any application (the dispatcher). */
  findMany(ids: string[]): Promise<WebhookSubscriptionRow[]>;
  addSecret(row: WebhookSecretRow): Promise<void>;
  /** Gives every current secret of the subscription (expiresAt null) this expiry: a rotation replaced it. */
  expireCurrentSecrets(subscriptionId: string, expiresAt: Date): Promise<void>;
  /** Secrets that still sign at `now`, newest first. */
  signingSecrets(subscriptionIds: string[], now: Date): Promise<WebhookSecretRow[]>;
}

export interface WebhookDeliveriesRepository {
  /**
   * Inserts the rows; an original delivery (replayOf null) of an event its
   * subscription already has is skipped, so a redelivered message creates
   * nothing twice. Returns the ids inserted.
   */
  insertMany(rows: WebhookDeliveryRow[]): Promise<string[]>;
  find(applicationId: string, subscriptionId: string, id: string): Promise<WebhookDeliveryRow | null>;
  list(applicationId: string, subscriptionId: string, filter: WebhookDeliveryFilter): Promise<WebhookDeliveryRow[]>; // newest first
  countSince(applicationId: string, subscriptionId: string, since: Date): Promise<number>;
  listSince(applicationId: string, subscriptionId: string, since: Date, limit: number): Promise<WebhookDeliveryRow[]>; // oldest first
  /** Pending deliveries of the subscription become abandoned with `lastError`; returns how many. */
  abandonPending(subscriptionId: string, lastError: string): Promise<number>;
  /**
   * Leases up to `limit` pending deliveries due at `now` to `leaseId` until
   * `leaseUntil` (their next_attempt_at), so no other dispatcher takes them
   * meanwhile (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one statement).
   */
  claimDue(now: Date, limit: number, leaseId: string, leaseUntil: Date): Promise<WebhookDeliveryRow[]>;
  /**
   * For each result whose lease still holds: the attempt row and the delivery's
   * new state. Returns the ids of the deliveries written (a lost lease writes nothing).
   */
  recordAttempts(results: WebhookAttemptResult[]): Promise<string[]>;
  attemptsOf(deliveryId: string): Promise<WebhookAttemptRow[]>; // oldest first
  /** Gives leased deliveries back, due at `at` (a dispatcher stopping before it sent them). */
  releaseLeases(leases: Array<{ deliveryId: string; leaseId: string }>, at: Date): Promise<void>;
}

// The checker's leases and the certificates it issues (migration 1760000000300).

/** A domain a checker holds the lease of. */
export interface LeasedDomain {
  /** The domain as it was when leased. */
  domain: DomainRow;
  /** Check runs completed before this one. */
  checkCount: number;
  /** Its check rows when leased, ownership → origin. */
  checks: CheckRow[];
  /** The certificate its hostname has (maybe issued to an earlier domain of that hostname). */
  certificate: CertificateRow | null;
}

/** What one step of a check run writes for a leased domain (CheckRunsRepository.record). */
export interface CheckRunRecord {
  domainId: string;
  /**
   * When the run began. A `next_check_at` written after it (a manual recheck
   * meanwhile) is kept when it is sooner than `nextCheckAt`.
   */
  startedAt: Date;
  status: Exclude<DomainStatus, 'deleting'>;
  nextCheckAt: Date;
  updatedAt: Date;
  /** Counts a completed run (check_count + 1): the first step of a run does. */
  counted: boolean;
  /** The lease goes on until then (more of the run follows); null ends it. */
  leaseUntil: Date | null;
  /** Check rows written (insert or replace). */
  checks: CheckRow[];
  certificate: CertificateRow | null;
  messages: OutboxMessage[];
}

export interface CheckRunsRepository {
  /**
   * Leases up to `limit` live domains due at `now` (next_check_at <= now) whose
   * lease is free or expired, to `leasedBy` until `leaseUntil`, oldest due
   * first, with their check rows and certificates (PostgreSQL: one statement,
   * FOR UPDATE SKIP LOCKED).
   */
  claimDue(now: Date, limit: number, leasedBy: string, leaseUntil: Date): Promise<LeasedDomain[]>;
  /** Leases one live domain unless another checker holds an unexpired lease; null when not taken. */
  claim(domainId: string, now: Date, leasedBy: string, leaseUntil: Date): Promise<LeasedDomain | null>;
  /** Extends the leases this checker still holds (a heartbeat for long runs); returns the ids still held. */
  extend(domainIds: string[], leasedBy: string, leaseUntil: Date): Promise<string[]>;
  /** Ends leases without counting a run. */
  release(domainIds: string[], leasedBy: string): Promise<void>;
  /**
   * Writes the records of domains this checker still holds and that are still
   * live, each with its check rows, certificate and outbox messages; records of
   * the others (deleted meanwhile, lease lost) are dropped. Returns the ids
   * written. Atomic by itself (PostgreSQL: one statement; SQLite: its own
   * transaction unless called inside one).
   */
  record(records: CheckRunRecord[], leasedBy: string): Promise<string[]>;
}

export type CertificateIssuerKind = 'internal' | 'acme';

export interface CertificateRow {
  hostname: string;
  domainId: string;
  issuer: CertificateIssuerKind;
  pemChain: string; // leaf first
  keySealed: string; // PKCS#8 PEM sealed with DATA_ENCRYPTION_KEY
  notBefore: Date;
  notAfter: Date;
  createdAt: Date;
}

export interface CertificatesRepository {
  find(hostname: string): Promise<CertificateRow | null>;
  /** The certificates of these hostnames (those that have one). */
  findMany(hostnames: string[]): Promise<CertificateRow[]>;
  /** Inserts or replaces the hostname's certificate. */
  save(row: CertificateRow): Promise<void>;
  delete(hostname: string): Promise<void>;
  /** Removes the certificates of deleted domains (background clean-up); returns their hostnames. */
  deleteOfDeletedDomains(): Promise<string[]>;
}

export interface AcmeChallengeRow {
  token: string;
  hostname: string;
  keyAuthorization: string;
  createdAt: Date;
}

export interface AcmeChallengesRepository {
  find(token: string): Promise<AcmeChallengeRow | null>;
  save(row: AcmeChallengeRow): Promise<void>;
  delete(token: string): Promise<void>;
  /** Removes challenges created before `before` (orders that never cleaned up); returns how many. */
  deleteOlderThan(before: Date): Promise<number>;
  /** Removes challenges whose hostname has no live (undeleted) domain (background clean-up); returns how many. */
  deleteWithoutLiveDomain(): Promise<number>;
}
