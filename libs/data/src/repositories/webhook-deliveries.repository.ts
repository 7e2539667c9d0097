import type { EntityManager, Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import { nullableTimestampFromDb, numberFromDb, queryPrepared, queryRows, timestampFromDb, type RawRow } from '../sql';
import type { DatabaseKind } from '../database-url';
import type { LeaseShares, WebhookAttemptResult, WebhookAttemptRow, WebhookDeliveriesRepository, WebhookDeliveryFilter, WebhookDeliveryRow } from './webhook-deliveries.types';
import { COOLING } from './webhook-cooling';
import { insertRows, rowsInsert, type Column } from './rows-insert';
import { atomically, chunks } from './write-helpers';

const COLUMNS: Array<Column<WebhookDeliveryRow>> = [
  ['id', 'id', 'uuid'], ['applicationId', 'application_id', 'uuid'], ['subscriptionId', 'subscription_id', 'uuid'], ['eventId', 'event_id', 'uuid'],
  ['eventType', 'event_type', 'varchar'], ['payload', 'payload', 'text'], ['state', 'state', 'varchar'], ['attempts', 'attempts', 'integer'],
  ['nextAttemptAt', 'next_attempt_at', 'timestamptz'], ['lastAttemptAt', 'last_attempt_at', 'timestamptz'], ['lastStatusCode', 'last_status_code', 'integer'],
  ['lastError', 'last_error', 'text'], ['createdAt', 'created_at', 'timestamptz'], ['deliveredAt', 'delivered_at', 'timestamptz'], ['replayOf', 'replay_of', 'uuid'],
  ['leaseId', 'lease_id', 'uuid'],
];
const ATTEMPT_COLUMNS: Array<Column<WebhookAttemptRow>> = [
  ['id', 'id', 'uuid'], ['deliveryId', 'delivery_id', 'uuid'], ['attempt', 'attempt', 'integer'], ['startedAt', 'started_at', 'timestamptz'],
  ['durationMs', 'duration_ms', 'integer'], ['statusCode', 'status_code', 'integer'], ['error', 'error', 'text'],
];
/** Rows per INSERT statement (parameters stay far below both databases' limits). */
const INSERT_CHUNK = 200;


function deliveryFromDb(raw: RawRow): WebhookDeliveryRow {
  return {
    id: raw.id as string,
    applicationId: raw.application_id as string,
    subscriptionId: raw.subscription_id as string,
    eventId: raw.event_id as string,
    eventType: raw.event_type as string,
    payload: raw.payload as string,
    state: raw.state as WebhookDeliveryRow['state'],
    attempts: numberFromDb(raw.attempts),
    nextAttemptAt: nullableTimestampFromDb(raw.next_attempt_at),
    lastAttemptAt: nullableTimestampFromDb(raw.last_attempt_at),
    lastStatusCode: raw.last_status_code === null ? null : numberFromDb(raw.last_status_code),
    lastError: raw.last_error as string | null,
    createdAt: timestampFromDb(raw.created_at),
    deliveredAt: nullableTimestampFromDb(raw.delivered_at),
    replayOf: raw.replay_of as string | null,
    leaseId: raw.lease_id as string | null,
  };
}

// DO NOTHING without a target covers the partial unique index on (subscription_id, event_id) of originals.
const INSERT_DELIVERIES = rowsInsert('webhook_deliveries', COLUMNS, ' ON CONFLICT DO NOTHING RETURNING id');
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

const RETURNED = COLUMNS.map(([, column]) => column).join(', ');

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
  WHERE s.${COOLING}
    AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.state = 'pending' AND d.next_attempt_at <= :now)
  FOR NO KEY UPDATE OF s SKIP LOCKED`;

/**
 * PostgreSQL lease. `pending` walks the pending deliveries by (subscription_id,
 * next_attempt_at): one index descent per subscription gives its earliest
 * one, however many it has. Each subscription with a due delivery gets a share
 * (the caller's room for it, or its cooling turn), the longest waiting first;
 * each share is filled from that subscription's earliest due deliveries
 * (LATERAL, FOR UPDATE SKIP LOCKED: replicas skip each other's rows), and the
 * deliveries are taken in turns: every subscription's first, then seconds, ….
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
  shares AS (
    SELECT p.subscription_id, p.next_attempt_at AS first_due,
      CASE WHEN s.${COOLING}
        THEN CASE WHEN s.id = ANY(CAST(:turns AS uuid[])) AND NOT ${LEASED_NOW} THEN 1 ELSE 0 END
        ELSE CAST(:perSubscription AS integer) - COALESCE(h.count, 0) END AS share
    FROM pending p
    JOIN webhook_subscriptions s ON s.id = p.subscription_id
    LEFT JOIN held h ON h.subscription_id = p.subscription_id
    WHERE p.next_attempt_at <= :now
  ),
  served AS (
    SELECT subscription_id, first_due, share FROM shares WHERE share > 0 ORDER BY first_due, subscription_id LIMIT :limit
  ),
  picked AS (
    SELECT l.id, t.subscription_id, t.first_due, row_number() OVER (PARTITION BY t.subscription_id ORDER BY l.next_attempt_at, l.id) AS turn
    FROM served t CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
      WHERE d.subscription_id = t.subscription_id AND d.state = 'pending' AND d.next_attempt_at <= :now
      ORDER BY d.next_attempt_at LIMIT t.share
      FOR UPDATE SKIP LOCKED) l
  ),
  chosen AS (
    SELECT id FROM picked ORDER BY turn, first_due, subscription_id LIMIT :limit
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
 * read in (subscription_id, next_attempt_at) order from the partial index.
 */
const LEASE_SQLITE = `
  WITH due AS (
    SELECT id, subscription_id,
      ROW_NUMBER() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS turn,
      MIN(next_attempt_at) OVER (PARTITION BY subscription_id) AS first_due
    FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= :now
  ),
  shares AS (
    SELECT s.id AS subscription_id,
      CASE WHEN s.${COOLING}
        THEN CASE WHEN ${LEASED_NOW} THEN 0 ELSE 1 END
        ELSE :perSubscription - COALESCE((SELECT CAST(h.value AS integer) FROM json_each(:held) h WHERE h.key = s.id), 0) END AS share
    FROM webhook_subscriptions s WHERE s.id IN (SELECT subscription_id FROM due)
  ),
  chosen AS (
    SELECT due.id FROM due JOIN shares ON shares.subscription_id = due.subscription_id
    WHERE due.turn <= shares.share
    ORDER BY due.turn, due.first_due, due.subscription_id LIMIT :limit
  )
  UPDATE webhook_deliveries SET lease_id = :leaseId, next_attempt_at = :leaseUntil
  WHERE id IN (SELECT id FROM chosen)
  RETURNING ${RETURNED}`;

/**
 * PostgreSQL: the failure streaks the outcomes (in their order) leave, one
 * statement. A subscription whose streak does not change is neither locked nor
 * written (a success where there was no streak); the others are locked in id
 * order first, so two dispatchers writing outcomes of the same subscriptions
 * never deadlock, and before their deliveries, as a revocation locks them.
 */
const UPDATE_STREAKS = `
  WITH v AS (
    SELECT * FROM unnest(CAST(:ids AS uuid[]), CAST(:delivered AS boolean[])) WITH ORDINALITY AS v(id, delivered, ord)
  ),
  outcomes AS (
    SELECT d.subscription_id, v.ord, max(CASE WHEN v.delivered THEN v.ord END) OVER (PARTITION BY d.subscription_id) AS last_delivered
    FROM v JOIN webhook_deliveries d ON d.id = v.id AND d.id = ANY(CAST(:ids AS uuid[]))
  ),
  tally AS (
    SELECT subscription_id, bool_or(last_delivered IS NOT NULL) AS ended, count(*) FILTER (WHERE ord > COALESCE(last_delivered, 0)) AS failures
    FROM outcomes GROUP BY subscription_id
  ),
  streaks AS (
    SELECT s.id, CASE WHEN t.ended THEN t.failures ELSE s.consecutive_failures + t.failures END AS streak
    FROM webhook_subscriptions s JOIN tally t ON t.subscription_id = s.id
  ),
  locked AS MATERIALIZED (
    SELECT s.id FROM webhook_subscriptions s JOIN streaks n ON n.id = s.id
    WHERE s.consecutive_failures <> n.streak
    ORDER BY s.id FOR NO KEY UPDATE OF s
  )
  UPDATE webhook_subscriptions s SET consecutive_failures = CASE WHEN t.ended THEN t.failures ELSE s.consecutive_failures + t.failures END
  FROM tally t JOIN locked k ON k.id = t.subscription_id
  WHERE s.id = t.subscription_id`;

/** SQLite: one outcome's move of its subscription's streak (not written when it does not change). */
const UPDATE_STREAK = `
  UPDATE webhook_subscriptions SET consecutive_failures = CASE WHEN :delivered THEN 0 ELSE consecutive_failures + 1 END
  WHERE id = (SELECT subscription_id FROM webhook_deliveries WHERE id = :id)
    AND consecutive_failures <> CASE WHEN :delivered THEN 0 ELSE consecutive_failures + 1 END`;

const NEWEST_FIRST = { createdAt: 'DESC', id: 'DESC' } as const;

export class TypeOrmWebhookDeliveriesRepository implements WebhookDeliveriesRepository {
  private readonly rows: Repository<WebhookDeliveryRow>;
  private readonly attempts: Repository<WebhookAttemptRow>;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.rows = manager.getRepository<WebhookDeliveryRow>(ENTITY.webhookDelivery);
    this.attempts = manager.getRepository<WebhookAttemptRow>(ENTITY.webhookAttempt);
  }

  async insertMany(rows: WebhookDeliveryRow[]): Promise<string[]> {
    const inserted: string[] = [];
    for (const chunk of chunks(rows, INSERT_CHUNK)) {
      const returned = await guardUnique(insertRows<WebhookDeliveryRow, { id: string }>(this.manager, this.kind, INSERT_DELIVERIES, chunk));
      inserted.push(...returned.map((r) => r.id));
    }
    return inserted;
  }

  find(applicationId: string, subscriptionId: string, id: string): Promise<WebhookDeliveryRow | null> {
    return this.rows.findOneBy({ applicationId, subscriptionId, id });
  }

  list(applicationId: string, subscriptionId: string, filter: WebhookDeliveryFilter): Promise<WebhookDeliveryRow[]> {
    return this.rows.find({
      where: { applicationId, subscriptionId, ...(filter.state ? { state: filter.state } : {}) },
      order: NEWEST_FIRST,
      skip: filter.offset,
      take: filter.limit,
    });
  }

  countSince(applicationId: string, subscriptionId: string, since: Date): Promise<number> {
    return this.sinceQuery(applicationId, subscriptionId, since).getCount();
  }

  listSince(applicationId: string, subscriptionId: string, since: Date, limit: number): Promise<WebhookDeliveryRow[]> {
    return this.sinceQuery(applicationId, subscriptionId, since).orderBy('d.created_at', 'ASC').addOrderBy('d.id', 'ASC').take(limit).getMany();
  }

  async abandonPending(subscriptionId: string, lastError: string): Promise<number> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ state: 'abandoned', nextAttemptAt: null, lastError })
      .where("subscription_id = :subscriptionId AND state = 'pending'", { subscriptionId })
      .execute();
    return result.affected ?? 0;
  }

  async countPending(applicationId: string): Promise<number> {
    // The literal 'pending' matches ix_webhook_deliveries_application_pending (SQLite needs it so).
    const [row] = await queryRows<{ count: unknown }>(this.manager, "SELECT count(*) AS count FROM webhook_deliveries WHERE application_id = :applicationId AND state = 'pending'", { applicationId });
    return numberFromDb(row?.count ?? 0);
  }

  async claimDue(now: Date, limit: number, leaseId: string, leaseUntil: Date, shares?: LeaseShares): Promise<WebhookDeliveryRow[]> {
    const perSubscription = shares?.perSubscription ?? limit;
    const held = [...(shares?.held ?? new Map<string, number>())];
    const params = { now, limit, leaseId, leaseUntil, perSubscription };
    if (this.kind !== 'postgres') {
      return (await queryRows<RawRow>(this.manager, LEASE_SQLITE, { ...params, held: JSON.stringify(Object.fromEntries(held)) })).map(deliveryFromDb);
    }
    // Two statements in one transaction: the cooling turns are locked before the lease's snapshot is taken.
    return atomically(this.manager, async (manager) => {
      const turns = (await queryPrepared<{ id: string }>(manager, COOLING_TURNS, { now })).map((row) => row.id);
      const rows = await queryPrepared<RawRow>(manager, LEASE_POSTGRES, {
        ...params, turns, heldIds: held.map(([id]) => id), heldCounts: held.map(([, count]) => count),
      });
      return rows.map(deliveryFromDb);
    });
  }

  recordAttempts(results: WebhookAttemptResult[]): Promise<string[]> {
    if (results.length === 0) return Promise.resolve([]);
    return atomically(this.manager, async (manager) => {
      // The streaks first: subscriptions are locked before their deliveries, as a revocation does.
      await this.updateStreaks(results, manager);
      const written = new Set<string>();
      for (const chunk of chunks(results, INSERT_CHUNK)) {
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

  attemptsOf(deliveryId: string): Promise<WebhookAttemptRow[]> {
    return this.attempts.find({ where: { deliveryId }, order: { attempt: 'ASC' } });
  }

  private sinceQuery(applicationId: string, subscriptionId: string, since: Date) {
    return this.rows
      .createQueryBuilder('d')
      .where('d.application_id = :applicationId AND d.subscription_id = :subscriptionId', { applicationId, subscriptionId })
      .andWhere('d.created_at >= :since', { since });
  }

  /** Each outcome moves its subscription's failure streak, in order; written or not, the attempt was made. */
  private async updateStreaks(results: WebhookAttemptResult[], manager: EntityManager): Promise<void> {
    if (this.kind === 'postgres') {
      for (const chunk of chunks(results, INSERT_CHUNK)) {
        await queryPrepared(manager, UPDATE_STREAKS, { ids: chunk.map((r) => r.attempt.deliveryId), delivered: chunk.map((r) => r.deliveredAt !== null) });
      }
      return;
    }
    for (const r of results) await queryRows(manager, UPDATE_STREAK, { id: r.attempt.deliveryId, delivered: r.deliveredAt !== null });
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
