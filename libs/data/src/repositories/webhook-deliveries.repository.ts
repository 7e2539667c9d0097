import type { EntityManager, Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import { nullableTimestampFromDb, numberFromDb, queryPrepared, queryRows, timestampFromDb, updateReturning, type RawRow } from '../sql';
import type {
  DatabaseKind,
  WebhookAttemptResult,
  WebhookAttemptRow,
  WebhookDeliveriesRepository,
  WebhookDeliveryFilter,
  WebhookDeliveryRow,
} from '../types';
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

  async claimDue(now: Date, limit: number, leaseId: string, leaseUntil: Date): Promise<WebhookDeliveryRow[]> {
    // Replicas skip each other's locked rows instead of waiting for them (PostgreSQL);
    // on SQLite the single statement is atomic and units of work are serialized.
    const lock = this.kind === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const rows = await updateReturning<RawRow>(this.manager, this.kind,
      `UPDATE webhook_deliveries SET lease_id = :leaseId, next_attempt_at = :leaseUntil
       WHERE id IN (SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= :now
                    ORDER BY next_attempt_at LIMIT :limit${lock})`,
      COLUMNS.map(([, column]) => column).join(', '),
      { leaseId, leaseUntil, now, limit },
    );
    return rows.map(deliveryFromDb);
  }

  recordAttempts(results: WebhookAttemptResult[]): Promise<string[]> {
    if (results.length === 0) return Promise.resolve([]);
    return atomically(this.manager, async (manager) => {
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
