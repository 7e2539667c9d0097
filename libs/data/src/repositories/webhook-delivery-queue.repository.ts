// The dispatcher's lease queue of webhook deliveries (DECISIONS §10): due
// deliveries leased in fair shares, each attempt's outcome written while its
// lease holds (moving the subscription's cooling state), leases given back on
// shutdown. The API's reads of the same rows are webhook-deliveries.repository.ts.
import { coolingAfter, recentFailures, sameCoolingState, type CoolingState } from '@cds/core';
import type { EntityManager, Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import { queryPrepared, queryRows, type RawRow } from '../sql';
import type { DatabaseKind } from '../database-url';
import type { WebhookAttemptRow, WebhookDeliveryRow } from './webhook-deliveries.types';
import type { LeaseShares, WebhookAttemptResult, WebhookDeliveryQueueRepository } from './webhook-delivery-queue.types';
import { cooling, coolingStateFromDb } from './webhook-cooling';
import { DELIVERY_CHUNK, DELIVERY_COLUMNS, deliveryFromDb } from './webhook-delivery-rows';
import { insertRows, rowsInsert, type Column } from './rows-insert';
import { atomically, chunks } from './write-helpers';

const ATTEMPT_COLUMNS: Array<Column<WebhookAttemptRow>> = [
  ['id', 'id', 'uuid'], ['deliveryId', 'delivery_id', 'uuid'], ['attempt', 'attempt', 'integer'], ['startedAt', 'started_at', 'timestamptz'],
  ['durationMs', 'duration_ms', 'integer'], ['statusCode', 'status_code', 'integer'], ['error', 'error', 'text'],
];
const INSERT_ATTEMPTS = rowsInsert('webhook_attempts', ATTEMPT_COLUMNS);

// A delivery abandoned meanwhile (revoked) keeps its state and the reason; the attempt still counts.
const OUTCOME_SET = `
    attempts = v.attempt, last_attempt_at = v.started_at, last_status_code = v.status_code, lease_id = NULL,
    last_error = CASE WHEN d.state = 'pending' THEN v.error ELSE d.last_error END,
    delivered_at = CASE WHEN d.state = 'pending' THEN v.delivered_at ELSE d.delivered_at END,
    next_attempt_at = CASE WHEN d.state = 'pending' THEN v.next_attempt_at ELSE d.next_attempt_at END,
    state = CASE WHEN d.state = 'pending' THEN v.state ELSE d.state END`;

/** PostgreSQL: the outcomes as arrays, one UPDATE … FROM unnest(…), the lease checked per row. */
const UPDATE_OUTCOMES = `
  WITH v AS (
    SELECT * FROM unnest(CAST(:ids AS uuid[]), CAST(:leases AS uuid[]), CAST(:attempts AS integer[]), CAST(:started AS timestamptz[]),
      CAST(:statuses AS integer[]), CAST(:errors AS text[]), CAST(:delivered AS timestamptz[]), CAST(:nexts AS timestamptz[]), CAST(:states AS varchar[]))
      AS v(id, lease_id, attempt, started_at, status_code, error, delivered_at, next_attempt_at, state)
  ),
  changed AS (
    UPDATE webhook_deliveries AS d SET ${OUTCOME_SET}
    FROM v WHERE d.id = v.id AND d.lease_id = v.lease_id
      -- The id list lets the planner find the rows by primary key whatever its estimate of the arrays.
      AND d.id = ANY(CAST(:ids AS uuid[]))
    RETURNING d.id
  )
  SELECT id FROM changed`;

const RETURNED = DELIVERY_COLUMNS.map(([, column]) => column).join(', ');

/**
 * A delivery of the subscription `s` is leased by some dispatcher now. A live
 * lease ends at most one lease length from now (replicas share WEBHOOK_TIMEOUT),
 * which bounds the index range read: later rows are scheduled retries.
 */
const LEASED_NOW = `EXISTS (SELECT 1 FROM webhook_deliveries l
    WHERE l.subscription_id = s.id AND l.state = 'pending' AND l.lease_id IS NOT NULL
      AND l.next_attempt_at > :now AND l.next_attempt_at <= :leaseUntil)`;

/**
 * PostgreSQL, first statement of a lease: the cooling subscriptions with a due
 * delivery whose turn this lease may take, their rows locked until it commits.
 * A lease of another dispatcher holding one is skipped; one that committed
 * before is seen by the next statement's snapshot, taken after this lock.
 */
const COOLING_TURNS = `
  SELECT s.id FROM webhook_subscriptions s
  WHERE ${cooling('s')}
    AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.state = 'pending' AND d.next_attempt_at <= :now)
  FOR NO KEY UPDATE OF s SKIP LOCKED`;

/**
 * PostgreSQL lease. `pending` walks the pending deliveries by (subscription_id,
 * next_attempt_at): one index descent per subscription gives its earliest
 * one, however many it has. Each subscription with a due delivery gets a share
 * (the caller's room for it, or its cooling turn), the longest waiting first,
 * and each application as many subscriptions as its own share (the caller's
 * room for the application) could take one delivery of; each share is filled
 * from that subscription's earliest due deliveries (LATERAL, FOR UPDATE SKIP
 * LOCKED: replicas skip each other's rows), and the deliveries are taken in
 * turns, every subscription's first, then seconds, …, at most the
 * application's share of one application's subscriptions together.
 */
const LEASE_POSTGRES = `
  WITH RECURSIVE pending AS (
    (SELECT subscription_id, next_attempt_at FROM webhook_deliveries
      WHERE state = 'pending' ORDER BY subscription_id, next_attempt_at LIMIT 1)
    UNION ALL
    SELECT n.subscription_id, n.next_attempt_at FROM pending p CROSS JOIN LATERAL (
      SELECT subscription_id, next_attempt_at FROM webhook_deliveries
      WHERE state = 'pending' AND subscription_id > p.subscription_id
      ORDER BY subscription_id, next_attempt_at LIMIT 1) n
  ),
  held AS (
    SELECT * FROM unnest(CAST(:heldIds AS uuid[]), CAST(:heldCounts AS integer[])) AS h(subscription_id, count)
  ),
  held_applications AS (
    SELECT * FROM unnest(CAST(:heldApplicationIds AS uuid[]), CAST(:heldApplicationCounts AS integer[])) AS h(application_id, count)
  ),
  shares AS (
    SELECT p.subscription_id, s.application_id, p.next_attempt_at AS first_due,
      CASE WHEN ${cooling('s')}
        THEN CASE WHEN s.id = ANY(CAST(:turns AS uuid[])) AND NOT ${LEASED_NOW} THEN 1 ELSE 0 END
        ELSE CAST(:perSubscription AS integer) - COALESCE(h.count, 0) END AS share,
      CAST(:perApplication AS integer) - COALESCE(ha.count, 0) AS application_share
    FROM pending p
    JOIN webhook_subscriptions s ON s.id = p.subscription_id
    LEFT JOIN held h ON h.subscription_id = p.subscription_id
    LEFT JOIN held_applications ha ON ha.application_id = s.application_id
    WHERE p.next_attempt_at <= :now
  ),
  served AS (
    SELECT subscription_id, application_id, first_due, share, application_share FROM (
      SELECT shares.*, row_number() OVER (PARTITION BY application_id ORDER BY first_due, subscription_id) AS application_turn
      FROM shares WHERE share > 0 AND application_share > 0
    ) x WHERE application_turn <= application_share
    ORDER BY first_due, subscription_id LIMIT :limit
  ),
  picked AS (
    SELECT l.id, t.subscription_id, t.application_id, t.first_due, t.application_share,
      row_number() OVER (PARTITION BY t.subscription_id ORDER BY l.next_attempt_at, l.id) AS turn
    FROM served t CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
      WHERE d.subscription_id = t.subscription_id AND d.state = 'pending' AND d.next_attempt_at <= :now
      ORDER BY d.next_attempt_at LIMIT t.share
      FOR UPDATE SKIP LOCKED) l
  ),
  ranked AS (
    SELECT id, subscription_id, first_due, turn, application_share,
      row_number() OVER (PARTITION BY application_id ORDER BY turn, first_due, subscription_id) AS application_turn
    FROM picked
  ),
  chosen AS (
    SELECT id FROM ranked WHERE application_turn <= application_share ORDER BY turn, first_due, subscription_id LIMIT :limit
  ),
  changed AS (
    UPDATE webhook_deliveries SET lease_id = :leaseId, next_attempt_at = :leaseUntil
    WHERE id IN (SELECT id FROM chosen) AND state = 'pending'
    RETURNING ${RETURNED}
  )
  SELECT * FROM changed`;

/**
 * SQLite lease, the same shares in one statement (units of work run one at a
 * time): every due delivery ranked within its subscription by ROW_NUMBER(),
 * read in (subscription_id, next_attempt_at) order from the partial index,
 * then those within their subscription's share ranked within their application.
 */
const LEASE_SQLITE = `
  WITH due AS (
    SELECT id, subscription_id, application_id,
      ROW_NUMBER() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS turn,
      MIN(next_attempt_at) OVER (PARTITION BY subscription_id) AS first_due
    FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= :now
  ),
  shares AS (
    SELECT s.id AS subscription_id,
      CASE WHEN ${cooling('s')}
        THEN CASE WHEN ${LEASED_NOW} THEN 0 ELSE 1 END
        ELSE :perSubscription - COALESCE((SELECT CAST(h.value AS integer) FROM json_each(:held) h WHERE h.key = s.id), 0) END AS share
    FROM webhook_subscriptions s WHERE s.id IN (SELECT subscription_id FROM due)
  ),
  ranked AS (
    SELECT due.id, due.turn, due.first_due, due.subscription_id,
      ROW_NUMBER() OVER (PARTITION BY due.application_id ORDER BY due.turn, due.first_due, due.subscription_id) AS application_turn,
      :perApplication - COALESCE((SELECT CAST(h.value AS integer) FROM json_each(:heldApplications) h WHERE h.key = due.application_id), 0) AS application_share
    FROM due JOIN shares ON shares.subscription_id = due.subscription_id
    WHERE due.turn <= shares.share
  ),
  chosen AS (
    SELECT id FROM ranked WHERE application_turn <= application_share
    ORDER BY turn, first_due, subscription_id LIMIT :limit
  )
  UPDATE webhook_deliveries SET lease_id = :leaseId, next_attempt_at = :leaseUntil
  WHERE id IN (SELECT id FROM chosen)
  RETURNING ${RETURNED}`;

/** The subscription of each delivery, with its cooling state as it is now. */
const COOLING_OF_POSTGRES = `
  SELECT d.id AS delivery_id, s.id, s.consecutive_failures, s.recent_outcomes
  FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
  WHERE d.id = ANY(CAST(:ids AS uuid[]))`;
const COOLING_OF_SQLITE = `
  SELECT d.id AS delivery_id, s.id, s.consecutive_failures, s.recent_outcomes
  FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
  WHERE d.id IN (:...ids)`;

/**
 * PostgreSQL: the subscriptions whose cooling state the outcomes change, locked
 * in id order (two dispatchers writing outcomes of the same subscriptions never
 * deadlock) and before their deliveries, as a revocation locks them.
 */
const LOCK_COOLING = `
  SELECT id, consecutive_failures, recent_outcomes FROM webhook_subscriptions
  WHERE id = ANY(CAST(:ids AS uuid[])) ORDER BY id FOR NO KEY UPDATE`;

const WRITE_COOLING_POSTGRES = `
  UPDATE webhook_subscriptions s SET consecutive_failures = v.streak, recent_outcomes = v.recent, recent_failures = v.failures
  FROM unnest(CAST(:ids AS uuid[]), CAST(:streaks AS integer[]), CAST(:recents AS varchar[]), CAST(:failures AS integer[])) AS v(id, streak, recent, failures)
  WHERE s.id = v.id`;
const WRITE_COOLING_SQLITE = `
  UPDATE webhook_subscriptions SET consecutive_failures = :streak, recent_outcomes = :recent, recent_failures = :failures WHERE id = :id`;

/** The states `outcomes` (by subscription, in order) leave from `states`, for the subscriptions they change. */
function coolingChanges(states: ReadonlyMap<string, CoolingState>, outcomes: ReadonlyMap<string, boolean[]>): Map<string, CoolingState> {
  const changed = new Map<string, CoolingState>();
  for (const [id, delivered] of outcomes) {
    const before = states.get(id);
    if (!before) continue;
    const after = delivered.reduce(coolingAfter, before);
    if (!sameCoolingState(before, after)) changed.set(id, after);
  }
  return changed;
}

export class TypeOrmWebhookDeliveryQueueRepository implements WebhookDeliveryQueueRepository {
  private readonly rows: Repository<WebhookDeliveryRow>;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.rows = manager.getRepository<WebhookDeliveryRow>(ENTITY.webhookDelivery);
  }

  async claimDue(now: Date, limit: number, leaseId: string, leaseUntil: Date, shares?: LeaseShares): Promise<WebhookDeliveryRow[]> {
    const perSubscription = shares?.perSubscription ?? limit;
    const perApplication = shares?.perApplication ?? limit;
    const held = [...(shares?.held ?? new Map<string, number>())];
    const heldApplications = [...(shares?.heldByApplication ?? new Map<string, number>())];
    const params = { now, limit, leaseId, leaseUntil, perSubscription, perApplication };
    if (this.kind !== 'postgres') {
      const counts = { held: JSON.stringify(Object.fromEntries(held)), heldApplications: JSON.stringify(Object.fromEntries(heldApplications)) };
      return (await queryRows<RawRow>(this.manager, LEASE_SQLITE, { ...params, ...counts })).map(deliveryFromDb);
    }
    // Two statements in one transaction: the cooling turns are locked before the lease's snapshot is taken.
    return atomically(this.manager, async (manager) => {
      const turns = (await queryPrepared<{ id: string }>(manager, COOLING_TURNS, { now })).map((row) => row.id);
      const rows = await queryPrepared<RawRow>(manager, LEASE_POSTGRES, {
        ...params, turns, heldIds: held.map(([id]) => id), heldCounts: held.map(([, count]) => count),
        heldApplicationIds: heldApplications.map(([id]) => id), heldApplicationCounts: heldApplications.map(([, count]) => count),
      });
      return rows.map(deliveryFromDb);
    });
  }

  recordAttempts(results: WebhookAttemptResult[]): Promise<string[]> {
    if (results.length === 0) return Promise.resolve([]);
    return atomically(this.manager, async (manager) => {
      // The cooling states first: subscriptions are locked before their deliveries, as a revocation does.
      await this.updateCooling(results, manager);
      const written = new Set<string>();
      for (const chunk of chunks(results, DELIVERY_CHUNK)) {
        const ids = this.kind === 'postgres' ? await this.updateOutcomesPostgres(chunk, manager) : await this.updateOutcomesOneByOne(chunk, manager);
        for (const id of ids) written.add(id);
      }
      const attempts = results.filter((r) => written.has(r.attempt.deliveryId)).map((r) => r.attempt);
      if (attempts.length > 0) await guardUnique(insertRows(manager, this.kind, INSERT_ATTEMPTS, attempts));
      return [...written];
    });
  }

  async releaseLeases(leases: Array<{ deliveryId: string; leaseId: string }>, at: Date): Promise<void> {
    for (const { deliveryId, leaseId } of leases) {
      await this.rows
        .createQueryBuilder()
        .update()
        .set({ leaseId: null, nextAttemptAt: at })
        .where("id = :deliveryId AND lease_id = :leaseId AND state = 'pending'", { deliveryId, leaseId })
        .execute();
    }
  }

  /**
   * Each outcome moves its subscription's cooling state (libs/core
   * coolingAfter), in order; written or not, the attempt was made. Read first
   * without a lock: a subscription whose state does not change (a success
   * with no failure to remember) is neither locked nor written.
   */
  private async updateCooling(results: WebhookAttemptResult[], manager: EntityManager): Promise<void> {
    const postgres = this.kind === 'postgres';
    const owners = new Map<string, string>();
    const states = new Map<string, CoolingState>();
    for (const chunk of chunks(results, DELIVERY_CHUNK)) {
      const ids = chunk.map((r) => r.attempt.deliveryId);
      const rows = postgres ? await queryPrepared<RawRow>(manager, COOLING_OF_POSTGRES, { ids }) : await queryRows<RawRow>(manager, COOLING_OF_SQLITE, { ids });
      for (const row of rows) {
        owners.set(row.delivery_id as string, row.id as string);
        states.set(row.id as string, coolingStateFromDb(row));
      }
    }
    const outcomes = new Map<string, boolean[]>();
    for (const r of results) {
      const subscriptionId = owners.get(r.attempt.deliveryId);
      if (subscriptionId) outcomes.set(subscriptionId, [...(outcomes.get(subscriptionId) ?? []), r.deliveredAt !== null]);
    }
    let changed = coolingChanges(states, outcomes);
    if (changed.size === 0) return;
    if (postgres) {
      // Locked, then read again: another dispatcher may have written outcomes since the first read.
      const locked = await queryPrepared<RawRow>(manager, LOCK_COOLING, { ids: [...changed.keys()] });
      changed = coolingChanges(new Map(locked.map((row) => [row.id as string, coolingStateFromDb(row)])), outcomes);
      const writes = [...changed];
      if (writes.length === 0) return;
      await queryPrepared(manager, WRITE_COOLING_POSTGRES, {
        ids: writes.map(([id]) => id), streaks: writes.map(([, s]) => s.failureStreak),
        recents: writes.map(([, s]) => s.recentOutcomes), failures: writes.map(([, s]) => recentFailures(s.recentOutcomes)),
      });
      return;
    }
    // SQLite: units of work run one at a time, so what was read still holds.
    for (const [id, state] of changed) {
      await queryRows(manager, WRITE_COOLING_SQLITE, { id, streak: state.failureStreak, recent: state.recentOutcomes, failures: recentFailures(state.recentOutcomes) });
    }
  }

  /** PostgreSQL: every outcome in one UPDATE … FROM unnest(…), lease checked per row. */
  private async updateOutcomesPostgres(results: WebhookAttemptResult[], manager: EntityManager): Promise<string[]> {
    const params = {
      ids: results.map((r) => r.attempt.deliveryId), leases: results.map((r) => r.leaseId), attempts: results.map((r) => r.attempt.attempt),
      started: results.map((r) => r.attempt.startedAt), statuses: results.map((r) => r.attempt.statusCode), errors: results.map((r) => r.attempt.error),
      delivered: results.map((r) => r.deliveredAt), nexts: results.map((r) => r.nextAttemptAt), states: results.map((r) => r.state),
    };
    return (await queryPrepared<{ id: string }>(manager, UPDATE_OUTCOMES, params)).map((row) => row.id);
  }

  /** SQLite: one UPDATE per outcome; the statements stay in-process, inside the caller's transaction. */
  private async updateOutcomesOneByOne(results: WebhookAttemptResult[], manager: EntityManager): Promise<string[]> {
    const written: string[] = [];
    for (const r of results) {
      const sql = `UPDATE webhook_deliveries AS d SET ${OUTCOME_SET}
        FROM (SELECT :attempt AS attempt, :started AS started_at, :status AS status_code, :error AS error,
                     :delivered AS delivered_at, :next AS next_attempt_at, :state AS state) AS v
        WHERE d.id = :id AND d.lease_id = :lease RETURNING id`;
      const params = {
        id: r.attempt.deliveryId, lease: r.leaseId, attempt: r.attempt.attempt, started: r.attempt.startedAt, status: r.attempt.statusCode,
        error: r.attempt.error, delivered: r.deliveredAt, next: r.nextAttemptAt, state: r.state,
      };
      written.push(...(await queryRows<{ id: string }>(manager, sql, params)).map((row) => row.id));
    }
    return written;
  }
}
