// An in-memory DataStore for unit tests of use cases (no I/O): the
// repositories the API's and the webhook dispatcher's use cases write through,
// over plain arrays. A transaction that throws leaves the arrays as they were;
// a repository no fake implements fails when a use case touches it.
import { randomUUID } from 'node:crypto';
import { FREE_PLAN_LIMITS, NOT_COOLING, type MessagePayload, type RoutingKey } from '@cds/core';
import {
  UNIQUE_CONSTRAINTS, UniqueViolation, windowOf,
  type ApplicationRow, type ApplicationsRepository, type CheckRow, type DataStore, type DomainListFilter, type DomainRow,
  type DomainsRepository, type NewApplicationRow, type OutboxMessage, type OutboxRepository, type OutboxRow, type RateCountersRepository,
  type RegisterOutcome, type Repositories, type WebhookAttemptResult, type WebhookAttemptRow, type WebhookDeliveriesRepository, type WebhookDeliveryQueueRepository,
  type WebhookDeliveryFilter, type WebhookDeliveryRow, type WebhookSecretRow, type WebhookSubscriptionRow, type WebhookSubscriptionsRepository,
} from '@cds/data';

/** Everything the fakes hold: what a test seeds and reads back. */
export interface FakeTables {
  applications: ApplicationRow[];
  domains: DomainRow[];
  checks: CheckRow[];
  outbox: OutboxRow[];
  rateCounters: Array<{ key: string; windowStart: Date; resetAt: Date; count: number }>;
  subscriptions: WebhookSubscriptionRow[];
  secrets: WebhookSecretRow[];
  deliveries: WebhookDeliveryRow[];
  attempts: WebhookAttemptRow[];
}

const emptyTables = (): FakeTables => ({
  applications: [], domains: [], checks: [], outbox: [], rateCounters: [], subscriptions: [], secrets: [], deliveries: [], attempts: [],
});

const live = (d: DomainRow) => d.deletedAt === null;
const byCreation = <T extends { createdAt: Date }>(a: T, b: T) => a.createdAt.getTime() - b.createdAt.getTime();

class FakeApplications implements ApplicationsRepository {
  constructor(private readonly t: FakeTables) {}
  async listLive() {
    return this.t.applications.filter((a) => a.deletedAt === null).sort(byCreation);
  }
  async findLiveBySlug(slug: string) {
    return this.t.applications.find((a) => a.slug === slug && a.deletedAt === null) ?? null;
  }
  async findById(id: string) {
    return this.t.applications.find((a) => a.id === id) ?? null;
  }
  async insert(row: NewApplicationRow) {
    if (await this.findLiveBySlug(row.slug)) throw new UniqueViolation(UNIQUE_CONSTRAINTS.applicationsLiveSlug);
    this.t.applications.push({ ...row, liveDomains: 0 });
  }
  async update(id: string, patch: Partial<Omit<ApplicationRow, 'id' | 'liveDomains'>>) {
    const row = this.t.applications.find((a) => a.id === id);
    if (row) Object.assign(row, patch);
  }
  async lock() {}
  async lockDeployment() {}
}

class FakeDomains implements DomainsRepository {
  constructor(private readonly t: FakeTables, private readonly outbox: FakeOutbox) {}
  async register(domain: DomainRow, checks: CheckRow[], opts: { limit: number; messages: OutboxMessage[] }): Promise<RegisterOutcome> {
    // As the database's one statement: a domain over the limit is not written, so it cannot clash either.
    const live = await this.countLive(domain.applicationId);
    if (live >= opts.limit) return { admitted: false, live };
    if (await this.findLiveByHostname(domain.hostname)) throw new UniqueViolation(UNIQUE_CONSTRAINTS.domainsLiveHostname);
    await this.insert(domain, checks);
    for (const message of opts.messages) this.outbox.write(message.routingKey, message.payload);
    return { admitted: true };
  }
  async insert(domain: DomainRow, checks: CheckRow[]) {
    this.t.domains.push({ ...domain });
    this.t.checks.push(...checks.map((c) => ({ ...c })));
    const application = this.t.applications.find((a) => a.id === domain.applicationId);
    if (application && live(domain)) application.liveDomains += 1;
  }
  async markDeleted(applicationId: string, id: string, at: Date) {
    const domain = this.t.domains.find((d) => d.applicationId === applicationId && d.id === id && live(d));
    if (!domain) return false;
    Object.assign(domain, { status: 'deleting', deletedAt: at, updatedAt: at, nextCheckAt: null });
    const application = this.t.applications.find((a) => a.id === applicationId);
    if (application) application.liveDomains -= 1;
    return true;
  }
  async find(applicationId: string, id: string, includeDeleted: boolean) {
    return this.t.domains.find((d) => d.applicationId === applicationId && d.id === id && (includeDeleted || live(d))) ?? null;
  }
  async list(applicationId: string, filter: DomainListFilter) {
    return this.t.domains
      .filter((d) => d.applicationId === applicationId && (filter.includeDeleted || live(d)))
      .filter((d) => (filter.reference === undefined || d.reference === filter.reference) && (filter.status === undefined || d.status === filter.status))
      .sort(byCreation)
      .slice(filter.offset, filter.offset + filter.limit);
  }
  async checksOf(domainIds: string[]) {
    return this.t.checks.filter((c) => domainIds.includes(c.domainId)).map((c) => ({ ...c }));
  }
  async countLive(applicationId: string) {
    return this.t.domains.filter((d) => d.applicationId === applicationId && live(d)).length;
  }
  async countLiveAll() {
    return this.t.domains.filter(live).length;
  }
  async findLiveByHostname(hostname: string) {
    return this.t.domains.find((d) => d.hostname === hostname && live(d)) ?? null;
  }
  async update(applicationId: string, id: string, patch: Partial<Omit<DomainRow, 'id' | 'applicationId' | 'deletedAt'>>) {
    const domain = this.t.domains.find((d) => d.applicationId === applicationId && d.id === id);
    if (domain) Object.assign(domain, patch);
  }
  async listLive(applicationId: string) {
    return this.t.domains.filter((d) => d.applicationId === applicationId && live(d)).sort(byCreation);
  }
}

class FakeOutbox implements OutboxRepository {
  constructor(private readonly t: FakeTables) {}
  /** What `add` and a registration's messages write. */
  write(routingKey: string, payload: unknown): OutboxRow {
    const row: OutboxRow = {
      id: randomUUID(), seq: this.t.outbox.length + 1, routingKey, payload: structuredClone(payload), createdAt: new Date(),
      publishedAt: null, attempts: 0, setAsideAt: null, setAsideReason: null,
    };
    this.t.outbox.push(row);
    return row;
  }
  async add<K extends RoutingKey>(routingKey: K, payload: MessagePayload<K>) {
    return this.write(routingKey, payload);
  }
  async unpublished(limit: number) {
    return this.t.outbox.filter((r) => r.publishedAt === null && r.setAsideAt === null).slice(0, limit);
  }
  async markPublished(ids: string[], at: Date) {
    for (const row of this.t.outbox) if (ids.includes(row.id)) row.publishedAt = at;
  }
  async recordFailedAttempt(ids: string[]) {
    for (const row of this.t.outbox) if (ids.includes(row.id)) row.attempts += 1;
  }
  async setAside(ids: string[], reason: string, at: Date) {
    for (const row of this.t.outbox) if (ids.includes(row.id)) Object.assign(row, { setAsideAt: at, setAsideReason: reason });
  }
  async backlog() {
    const waiting = await this.unpublished(Number.MAX_SAFE_INTEGER);
    return { count: waiting.length, oldestAt: waiting[0]?.createdAt ?? null };
  }
  async all(routingKey?: string) {
    return this.t.outbox.filter((r) => routingKey === undefined || r.routingKey === routingKey);
  }
}

/** The database's fixed and anchored windows (rate-counters.repository.ts), counted in memory. */
class FakeRateCounters implements RateCountersRepository {
  constructor(private readonly t: FakeTables) {}
  async hit(key: string, windowSeconds: number, now: Date, opts: { anchored?: boolean; amount?: number } = {}) {
    const amount = opts.amount ?? 1;
    const window = opts.anchored ? { windowStart: now, resetAt: new Date(now.getTime() + windowSeconds * 1000) } : windowOf(windowSeconds, now);
    const row = this.t.rateCounters.find((r) => r.key === key);
    if (!row) {
      this.t.rateCounters.push({ key, ...window, count: amount });
      return { count: amount, resetAt: window.resetAt };
    }
    const same = opts.anchored ? row.resetAt > window.windowStart : row.windowStart >= window.windowStart;
    if (same) row.count += amount;
    else Object.assign(row, { ...window, count: amount });
    return { count: row.count, resetAt: row.resetAt };
  }
  async countAttempt(key: string, windowSeconds: number, now: Date, failed: boolean) {
    const amount = failed ? 1 : 0;
    const { count, resetAt } = await this.hit(key, windowSeconds, now, { amount });
    return { failuresBefore: count - amount, resetAt };
  }
  async peek(key: string, windowSeconds: number, now: Date) {
    const window = windowOf(windowSeconds, now);
    const row = this.t.rateCounters.find((r) => r.key === key);
    if (!row || row.windowStart < window.windowStart) return { count: 0, resetAt: window.resetAt };
    return { count: row.count, resetAt: row.resetAt };
  }
  async hitBelow(key: string, windowSeconds: number, now: Date, limit: number) {
    const seen = await this.peek(key, windowSeconds, now);
    if (seen.count >= limit) return { counted: false, ...seen };
    return { counted: true, ...(await this.hit(key, windowSeconds, now)) };
  }
  async peekMany(keys: readonly string[], windowSeconds: number, now: Date) {
    const counts = new Map<string, number>();
    for (const key of keys) counts.set(key, (await this.peek(key, windowSeconds, now)).count);
    return counts;
  }
}

class FakeWebhookSubscriptions implements WebhookSubscriptionsRepository {
  constructor(private readonly t: FakeTables) {}
  async insert(subscription: WebhookSubscriptionRow, secret: WebhookSecretRow) {
    this.t.subscriptions.push({ ...subscription, events: [...subscription.events] });
    this.t.secrets.push({ ...secret });
  }
  async list(applicationId: string) {
    return this.t.subscriptions.filter((s) => s.applicationId === applicationId).sort(byCreation);
  }
  async find(applicationId: string, id: string) {
    return this.t.subscriptions.find((s) => s.applicationId === applicationId && s.id === id) ?? null;
  }
  async lock() {}
  async countActive(applicationId: string) {
    return this.t.subscriptions.filter((s) => s.applicationId === applicationId && s.status === 'active').length;
  }
  async update(applicationId: string, id: string, patch: Partial<Pick<WebhookSubscriptionRow, 'status' | 'updatedAt' | 'revokedAt'>>) {
    const row = await this.find(applicationId, id);
    if (row) Object.assign(row, patch);
  }
  async activeForFanOut(applicationIds: string[]) {
    return this.t.subscriptions.filter((s) => applicationIds.includes(s.applicationId) && s.status === 'active');
  }
  async findMany(ids: string[]) {
    return this.t.subscriptions.filter((s) => ids.includes(s.id));
  }
  async addSecret(row: WebhookSecretRow) {
    this.t.secrets.push({ ...row });
  }
  async expireCurrentSecrets(subscriptionId: string, expiresAt: Date) {
    for (const secret of this.t.secrets) if (secret.subscriptionId === subscriptionId && secret.expiresAt === null) secret.expiresAt = expiresAt;
  }
  async signingSecrets(subscriptionIds: string[], now: Date) {
    return this.t.secrets
      .filter((s) => subscriptionIds.includes(s.subscriptionId) && (s.expiresAt === null || s.expiresAt > now))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }
  // Cooling states are not kept: no subscription is ever cooling here.
  async coolingStates(subscriptionIds: string[]) {
    return new Map(subscriptionIds.map((id) => [id, NOT_COOLING]));
  }
  async countCooling() {
    return 0;
  }
}

class FakeWebhookDeliveries implements WebhookDeliveriesRepository {
  constructor(private readonly t: FakeTables) {}
  async insertMany(rows: WebhookDeliveryRow[]) {
    const inserted: string[] = [];
    for (const row of rows) {
      const duplicate = row.replayOf === null
        && this.t.deliveries.some((d) => d.replayOf === null && d.subscriptionId === row.subscriptionId && d.eventId === row.eventId);
      if (duplicate) continue;
      this.t.deliveries.push({ ...row });
      inserted.push(row.id);
    }
    return inserted;
  }
  async find(applicationId: string, subscriptionId: string, id: string) {
    return this.t.deliveries.find((d) => d.applicationId === applicationId && d.subscriptionId === subscriptionId && d.id === id) ?? null;
  }
  async list(applicationId: string, subscriptionId: string, filter: WebhookDeliveryFilter) {
    return this.t.deliveries
      .filter((d) => d.applicationId === applicationId && d.subscriptionId === subscriptionId && (filter.state === undefined || d.state === filter.state))
      .sort((a, b) => byCreation(b, a))
      .slice(filter.offset, filter.offset + filter.limit);
  }
  async countSince(applicationId: string, subscriptionId: string, since: Date) {
    return (await this.listSince(applicationId, subscriptionId, since, Number.MAX_SAFE_INTEGER)).length;
  }
  async listSince(applicationId: string, subscriptionId: string, since: Date, limit: number) {
    return this.t.deliveries
      .filter((d) => d.applicationId === applicationId && d.subscriptionId === subscriptionId && d.createdAt >= since)
      .sort(byCreation)
      .slice(0, limit);
  }
  async abandonPending(subscriptionId: string, lastError: string) {
    const pending = this.t.deliveries.filter((d) => d.subscriptionId === subscriptionId && d.state === 'pending');
    for (const d of pending) Object.assign(d, { state: 'abandoned', lastError, nextAttemptAt: null });
    return pending.length;
  }
  async countPending(applicationId: string) {
    return this.t.deliveries.filter((d) => d.applicationId === applicationId && d.state === 'pending').length;
  }
  async attemptsOf(deliveryId: string) {
    return this.t.attempts.filter((a) => a.deliveryId === deliveryId).sort((a, b) => a.attempt - b.attempt);
  }
}

class FakeWebhookDeliveryQueue implements WebhookDeliveryQueueRepository {
  constructor(private readonly t: FakeTables) {}
  async claimDue(now: Date, limit: number, leaseId: string, leaseUntil: Date) {
    const due = this.t.deliveries.filter((d) => d.state === 'pending' && d.nextAttemptAt !== null && d.nextAttemptAt <= now).slice(0, limit);
    for (const d of due) Object.assign(d, { leaseId, nextAttemptAt: leaseUntil });
    return due.map((d) => ({ ...d }));
  }
  async recordAttempts(results: WebhookAttemptResult[]) {
    const written: string[] = [];
    for (const { leaseId, attempt, state, nextAttemptAt, deliveredAt } of results) {
      const delivery = this.t.deliveries.find((d) => d.id === attempt.deliveryId);
      if (!delivery || delivery.leaseId !== leaseId) continue;
      this.t.attempts.push({ ...attempt });
      Object.assign(delivery, {
        // A revocation meanwhile abandoned it: it stays abandoned.
        state: delivery.state === 'abandoned' ? 'abandoned' : state,
        nextAttemptAt: delivery.state === 'abandoned' ? null : nextAttemptAt,
        attempts: attempt.attempt, lastAttemptAt: attempt.startedAt, lastStatusCode: attempt.statusCode, lastError: attempt.error,
        deliveredAt, leaseId: null,
      });
      written.push(delivery.id);
    }
    return written;
  }
  async releaseLeases(leases: Array<{ deliveryId: string; leaseId: string }>, at: Date) {
    for (const { deliveryId, leaseId } of leases) {
      const delivery = this.t.deliveries.find((d) => d.id === deliveryId && d.leaseId === leaseId);
      if (delivery) Object.assign(delivery, { leaseId: null, nextAttemptAt: at });
    }
  }
}

/** An active application on the free plan, its limits overridable. */
export function fakeApplication(overrides: Partial<Omit<ApplicationRow, 'limits'>> & { limits?: Partial<ApplicationRow['limits']> } = {}): ApplicationRow {
  const { limits, ...rest } = overrides;
  const createdAt = new Date('2025-03-04T05:06:07.089Z');
  return {
    id: randomUUID(), slug: `app-${randomUUID().slice(0, 8)}`, name: 'Shop', status: 'active', plan: 'free', contactEmail: 'ops@example.com',
    limits: { ...FREE_PLAN_LIMITS, ...limits }, createdAt, updatedAt: createdAt, deletedAt: null, liveDomains: 0, ...rest,
  };
}

/** A repository no fake stands in for: the use case under test should not need it. */
function notFaked<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get: (_target, method) => () => Promise.reject(new Error(`the fake store has no ${name}.${String(method)}`)),
  });
}

/** The fake store and its tables; `units` records the units of work the code under test opened, in order. */
export interface FakeStore extends DataStore {
  tables: FakeTables;
  units: Array<'run' | 'transaction'>;
}

export function fakeStore(seed: Partial<FakeTables> = {}): FakeStore {
  const tables: FakeTables = { ...emptyTables(), ...structuredClone(seed) };
  const repositories = (): Repositories => {
    const outbox = new FakeOutbox(tables);
    return {
      applications: new FakeApplications(tables),
      domains: new FakeDomains(tables, outbox),
      outbox,
      rateCounters: new FakeRateCounters(tables),
      webhookSubscriptions: new FakeWebhookSubscriptions(tables),
      webhookDeliveries: new FakeWebhookDeliveries(tables),
      webhookDeliveryQueue: new FakeWebhookDeliveryQueue(tables),
      credentials: notFaked('credentials'),
      idempotency: notFaked('idempotency'),
      settings: notFaked('settings'),
      diagnostics: notFaked('diagnostics'),
      origins: notFaked('origins'),
      assertionKeys: notFaked('assertionKeys'),
      traffic: notFaked('traffic'),
      checkRuns: notFaked('checkRuns'),
      certificates: notFaked('certificates'),
      acmeChallenges: notFaked('acmeChallenges'),
      acmeOrders: notFaked('acmeOrders'),
      housekeeping: notFaked('housekeeping'),
      edgeReads: notFaked('edgeReads'),
      domainLookup: notFaked('domainLookup'),
      sealedValues: notFaked('sealedValues'),
    };
  };
  const store: FakeStore = {
    kind: 'sqlite',
    tables,
    units: [],
    async transaction(fn) {
      store.units.push('transaction');
      const before = structuredClone(tables);
      try {
        return await fn(repositories());
      } catch (err) {
        Object.assign(tables, before);
        throw err;
      }
    },
    async run(fn) {
      store.units.push('run');
      return fn(repositories());
    },
    migrate: async () => [],
    pendingMigrations: async () => [],
    pendingIndexes: async () => [],
    revertLastMigration: async () => null,
    ping: async () => undefined,
    close: async () => undefined,
  };
  return store;
}
