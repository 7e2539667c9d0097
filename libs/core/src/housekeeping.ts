// Housekeeping and retention (DECISIONS §9): what a run deletes, and which
// runner may run. Pure decisions; libs/data holds the statements and the runner.

/** Rows one statement deletes at most, so that no run holds long locks. */
export const HOUSEKEEPING_BATCH_ROWS = 1000;

/**
 * After each statement a run pauses this many times as long as the statement
 * took (at most HOUSEKEEPING_MAX_PAUSE_MS): deletes write much WAL, and every
 * commit of the service waits for its WAL to be flushed, so a run that deletes
 * back to back slows every write of the service (measured: POST /v1/domains at
 * 200/s, one application, fell behind for minutes while a million-row backlog
 * was pruned). The pause grows by itself when the database is busy.
 */
export const HOUSEKEEPING_PAUSE_FACTOR = 4;
export const HOUSEKEEPING_MAX_PAUSE_MS = 1000;

/** The pause after a statement that took `statementMs`. */
export function pauseAfterStatement(statementMs: number, factor = HOUSEKEEPING_PAUSE_FACTOR): number {
  return Math.min(HOUSEKEEPING_MAX_PAUSE_MS, Math.max(0, statementMs * factor));
}

/** Daily traffic counters older than this many days are deleted. */
export const TRAFFIC_RETENTION_DAYS = 400;

/**
 * How long a runner's claim lasts unless renewed. A runner renews it while it
 * works, so only a crashed (or frozen) holder lets it lapse; the next runner
 * then takes over.
 */
export const HOUSEKEEPING_LEASE_MS = 5 * 60_000;

/**
 * A run is due once this share of HOUSEKEEPING_INTERVAL has passed since the
 * last successful run started: replicas' timers drift, and one that ticks a
 * moment early must not skip a whole interval.
 */
const DUE_SHARE = 0.9;

/**
 * Tables in the order a run prunes them: rows that point at a row go before
 * it (attempts before their delivery; checks, recent check runs,
 * certificates and challenges before their domain), so no delete cascades
 * beyond its batch.
 */
export const HOUSEKEEPING_TABLES = [
  'outbox',
  'webhook_attempts',
  'webhook_deliveries',
  'domain_checks',
  'domain_check_runs',
  'certificates',
  'acme_challenges',
  'domains',
  'idempotency_keys',
  'rate_counters',
  'traffic_daily',
] as const;
export type HousekeepingTable = (typeof HOUSEKEEPING_TABLES)[number];

/**
 * HOUSEKEEPING_TABLES as a run goes through them: the tables of a group take
 * one batch each in turn until a round where every batch comes back short.
 * A delivery's attempts go one batch before the delivery, so each attempts
 * batch reads only the oldest deliveries past retention instead of all of
 * them (measured: one batch a second with a million deliveries kept until
 * every attempt was gone).
 */
export const HOUSEKEEPING_GROUPS: ReadonlyArray<readonly HousekeepingTable[]> = [
  ['outbox'],
  ['webhook_attempts', 'webhook_deliveries'],
  ['domain_checks'],
  ['domain_check_runs'],
  ['certificates'],
  ['acme_challenges'],
  ['domains'],
  ['idempotency_keys'],
  ['rate_counters'],
  ['traffic_daily'],
];

/** The settings behind a run, in milliseconds (libs/config's Config has these fields). */
export interface HousekeepingSettings {
  readonly housekeepingInterval: number;
  readonly outboxRetention: number;
  readonly webhookDeliveryRetention: number;
  readonly deletedDomainRetention: number;
}

/** What a run started at one instant (of the database's clock) deletes: rows on the far side of each cutoff. */
export interface RetentionCutoffs {
  /** Published outbox rows published before this. */
  readonly outboxPublishedBefore: Date;
  /** Delivered and abandoned webhook deliveries created before this. */
  readonly deliveriesCreatedBefore: Date;
  /** Domains deleted before this. */
  readonly domainsDeletedBefore: Date;
  /** Idempotency keys expired and rate-counter windows ended at or before this (the run's start). */
  readonly expiredAt: Date;
  /** traffic_daily rows of days before this one (`YYYY-MM-DD`, UTC). */
  readonly firstTrafficDayKept: string;
}

const DAY_MS = 86_400_000;

/** The cutoffs of a run that starts at `now`, read from the database's clock (the one its rows' times compare to). */
export function retentionCutoffs(now: Date, settings: HousekeepingSettings): RetentionCutoffs {
  const before = (ms: number) => new Date(now.getTime() - ms);
  return {
    outboxPublishedBefore: before(settings.outboxRetention),
    deliveriesCreatedBefore: before(settings.webhookDeliveryRetention),
    domainsDeletedBefore: before(settings.deletedDomainRetention),
    expiredAt: now,
    firstTrafficDayKept: before(TRAFFIC_RETENTION_DAYS * DAY_MS).toISOString().slice(0, 10),
  };
}

/** A batch smaller than the limit found the last rows of its table. */
export function isLastBatch(deleted: number): boolean {
  return deleted < HOUSEKEEPING_BATCH_ROWS;
}

/** The deployment-wide housekeeping record: who runs now, and when the last run succeeded. */
export interface HousekeepingLease {
  /** The runner holding the lease; null when none does. */
  readonly holder: string | null;
  /** When the holder's claim lapses unless renewed. */
  readonly until: Date | null;
  /** Start of the last successful run. */
  readonly lastRunAt: Date | null;
  /** End of the last successful run. */
  readonly lastSuccessAt: Date | null;
}

export const FREE_LEASE: HousekeepingLease = { holder: null, until: null, lastRunAt: null, lastSuccessAt: null };

/** Why a runner does not run now: another holds the lease, or a run succeeded less than an interval ago. */
export type HousekeepingSkip = 'busy' | 'not_due';

export function leaseDecision(current: HousekeepingLease, now: Date, intervalMs: number): { take: true } | { take: false; reason: HousekeepingSkip } {
  const at = now.getTime();
  if (current.holder !== null && current.until !== null && current.until.getTime() > at) return { take: false, reason: 'busy' };
  if (current.lastRunAt !== null) {
    const since = at - current.lastRunAt.getTime();
    // A last run further in the future than one interval means the clock went back: run rather than wait for it.
    if (since < intervalMs * DUE_SHARE && since > -intervalMs) return { take: false, reason: 'not_due' };
  }
  return { take: true };
}

/** The lease as stored (a settings value): JSON with ISO timestamps, keys always in this order. */
export function leaseText(lease: HousekeepingLease): string {
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  return JSON.stringify({ holder: lease.holder, until: iso(lease.until), last_run_at: iso(lease.lastRunAt), last_success_at: iso(lease.lastSuccessAt) });
}

/** A stored lease; text that is not one reads as a free lease with no run recorded. */
export function parseLease(text: string): HousekeepingLease {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return FREE_LEASE;
  }
  if (typeof value !== 'object' || value === null) return FREE_LEASE;
  const record = value as Record<string, unknown>;
  const date = (field: unknown) => {
    if (typeof field !== 'string') return null;
    const d = new Date(field);
    return Number.isNaN(d.getTime()) ? null : d;
  };
  return {
    holder: typeof record.holder === 'string' ? record.holder : null,
    until: date(record.until),
    lastRunAt: date(record.last_run_at),
    lastSuccessAt: date(record.last_success_at),
  };
}
