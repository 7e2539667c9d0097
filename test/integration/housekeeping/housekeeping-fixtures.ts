// Rows to prune and a clock for the runners: the housekeeping tests seed
// through the repositories, as old as a case needs (retention is measured on
// the database's clock), count with plain SQL, and move the runners' clock to
// make their runs due instead of waiting for intervals and leases to pass.
import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { DOMAIN_CHANGES, ROUTING_KEYS, type HousekeepingSettings } from '@cds/core';
import type { CertificateRow, DataStore, WebhookDeliveryRow, WebhookSubscriptionRow } from '@cds/data';
import { createHousekeeping, type Housekeeping, type HousekeepingOptions, type PruneStatementEvent } from '@cds/lifecycle';
import { insertCheckRuns, type StoredCheckRun } from '../../support/check-run-rows';
import { withClient, type TestDatabase } from '../../support/test-database';
import { anApplication, aDomain, checksFor } from '../data/data-fixtures';

export const MINUTE = 60_000;
export const DAY = 86_400_000;

/** The defaults of DECISIONS §9. */
export const SETTINGS: HousekeepingSettings = {
  housekeepingInterval: 10 * MINUTE,
  outboxRetention: 7 * DAY,
  webhookDeliveryRetention: 30 * DAY,
  deletedDomainRetention: 30 * DAY,
};

/** A clock that moves only when told. */
export class ManualClock {
  constructor(private at: number) {}

  readonly now = (): Date => new Date(this.at);

  set(at: Date): void {
    this.at = at.getTime();
  }

  advance(ms: number): Date {
    this.at += ms;
    return this.now();
  }
}

/** A runner on `store` without a timer, its statements recorded in `statements`. */
export function runnerOn(store: DataStore, now: () => Date, opts: Partial<HousekeepingOptions> = {}): { runner: Housekeeping; statements: PruneStatementEvent[] } {
  const statements: PruneStatementEvent[] = [];
  const onStatement = opts.onStatement;
  const runner = createHousekeeping({
    store, settings: SETTINGS, now, ...opts,
    onStatement: async (event) => {
      statements.push(event);
      await onStatement?.(event);
    },
  });
  return { runner, statements };
}

/** Rows of `table` (optionally those matching `where`), by plain SQL beside the data store. */
export async function countRows(db: TestDatabase, table: string, where = 'TRUE'): Promise<number> {
  const sql = `SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`;
  if (db.kind === 'postgres') return withClient(db.url, async (client) => Number((await client.query<{ n: string }>(sql)).rows[0]?.n));
  const file = new Database(db.url.slice('sqlite:'.length));
  try {
    return Number((file.prepare(sql.replace('TRUE', '1')).get() as { n: number }).n);
  } finally {
    file.close();
  }
}

/** An outbox row (domain.changed), published at `publishedAt` when given. */
export async function anOutboxRow(store: DataStore, publishedAt: Date | null): Promise<string> {
  const [id] = await someOutboxRows(store, 1, publishedAt);
  return id as string;
}

/** `count` outbox rows as anOutboxRow makes them, in one transaction. */
export function someOutboxRows(store: DataStore, count: number, publishedAt: Date | null): Promise<string[]> {
  return store.transaction(async (r) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const payload = { domain_id: randomUUID(), hostname: 'shop.example.com', application_id: randomUUID(), change: DOMAIN_CHANGES.status };
      ids.push((await r.outbox.add(ROUTING_KEYS.domainChanged, payload)).id);
    }
    if (publishedAt) await r.outbox.markPublished(ids, publishedAt);
    return ids;
  });
}

export async function aSubscription(store: DataStore): Promise<WebhookSubscriptionRow> {
  const app = anApplication();
  const at = new Date();
  const sub: WebhookSubscriptionRow = {
    id: randomUUID(), applicationId: app.id, url: 'https://hooks.example.com/in', events: ['domain.ready'],
    status: 'active', createdAt: at, updatedAt: at, revokedAt: null,
  };
  await store.run((r) => r.applications.insert(app));
  await store.run((r) => r.webhookSubscriptions.insert(sub, { id: randomUUID(), subscriptionId: sub.id, secretSealed: 'sealed', createdAt: at, expiresAt: null }));
  return sub;
}

/**
 * A delivery created at `createdAt` that had one attempt and ended in `state`
 * (a `pending` one failed its attempt and waits for the next); `replayOf`
 * makes it a replay of that delivery.
 */
export async function aDelivery(store: DataStore, sub: WebhookSubscriptionRow, state: WebhookDeliveryRow['state'], createdAt: Date, replayOf: string | null = null): Promise<string> {
  const [id] = await someDeliveries(store, sub, 1, state, createdAt, replayOf);
  return id as string;
}

/** `count` deliveries as aDelivery makes them, written in two statements. */
export async function someDeliveries(store: DataStore, sub: WebhookSubscriptionRow, count: number, state: WebhookDeliveryRow['state'], createdAt: Date, replayOf: string | null = null): Promise<string[]> {
  const leaseId = randomUUID();
  const rows: WebhookDeliveryRow[] = Array.from({ length: count }, () => ({
    id: randomUUID(), applicationId: sub.applicationId, subscriptionId: sub.id, eventId: randomUUID(), eventType: 'domain.ready',
    payload: '{"id":"x"}', state: 'pending', attempts: 0, nextAttemptAt: createdAt, lastAttemptAt: null, lastStatusCode: null,
    lastError: null, createdAt, deliveredAt: null, replayOf, leaseId,
  }));
  await store.run((r) => r.webhookDeliveries.insertMany(rows));
  const delivered = state === 'delivered';
  const startedAt = new Date(createdAt.getTime() + 1000);
  await store.run((r) =>
    r.webhookDeliveryQueue.recordAttempts(rows.map((row) => ({
      leaseId,
      attempt: { id: randomUUID(), deliveryId: row.id, attempt: 1, startedAt, durationMs: 12, statusCode: delivered ? 200 : 500, error: delivered ? null : 'HTTP 500' },
      state,
      nextAttemptAt: state === 'pending' ? new Date(createdAt.getTime() + MINUTE) : null,
      deliveredAt: delivered ? startedAt : null,
    }))),
  );
  return rows.map((row) => row.id);
}

/** Two recent check runs (DECISIONS §15), as the checker keeps them. */
const TWO_RUNS: StoredCheckRun[] = [0, 1].map((slot) => ({
  slot, startedAt: new Date(Date.UTC(2026, 0, 1, 0, slot)), durationMs: 120, trigger: slot === 0 ? 'created' : 'schedule',
  statusBefore: 'pending_dns', statusAfter: 'ready', checks: Array.from({ length: 4 }, () => ['passing', null, null]),
}));

/**
 * A domain of `applicationId` deleted at `deletedAt` (live when null), with its
 * four checks, two recent check runs, a certificate and an ACME challenge under
 * its hostname.
 */
export async function aDomainWithEverything(
  { store, db }: { store: DataStore; db: TestDatabase }, applicationId: string, deletedAt: Date | null, hostname = `shop-${randomBytes(4).toString('hex')}.example.net`,
) {
  const domain = aDomain(applicationId, { hostname, deletedAt, status: deletedAt ? 'deleting' : 'ready' });
  await store.run((r) => r.domains.insert(domain, checksFor(domain.id)));
  await insertCheckRuns(db.url, domain.id, TWO_RUNS);
  const certificate: CertificateRow = {
    hostname, domainId: domain.id, issuer: 'internal', pemChain: 'chain', keySealed: 'sealed',
    notBefore: new Date('2026-01-01T00:00:00.000Z'), notAfter: new Date('2026-04-01T00:00:00.000Z'), createdAt: new Date(),
  };
  await store.run((r) => r.certificates.save(certificate));
  const token = randomBytes(16).toString('hex');
  await store.run((r) => r.acmeChallenges.save({ token, hostname, keyAuthorization: `${token}.thumb`, createdAt: new Date() }));
  return { id: domain.id, hostname, token };
}
