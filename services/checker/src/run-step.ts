// What one step of a check run writes, decided without I/O. A run has one
// step, or two when a certificate must be issued: the first records the DNS
// and origin checks (the certificate check says it is being issued), the
// second the certificate. Each step computes the status from all four checks
// as they stand after it (DECISIONS §2, the spec's transition table), a failure
// of a `ready` domain counting only once confirmed (DECISIONS §11): until then
// the check shows `passing` with a message saying what was seen.
import {
  CHECK_TYPES,
  confirmingMessage,
  DOMAIN_CHANGES,
  domainEvent,
  failureConfirmed,
  nextCheckDelayMs,
  nextStatus,
  nextStreak,
  NO_STREAK,
  RENEWAL_FAILED_PREFIX,
  ROUTING_KEYS,
  toDomainResource,
  type CheckOutcome,
  type CheckSchedule,
  type CheckStreak,
  type CheckType,
  type ConfirmationSettings,
  type RunCheck,
  type RunTrigger,
} from '@cds/core';
import type { CertificateRow, CheckRow, CheckRunRecord, DomainRow, OutboxMessage, RecentRun } from '@cds/data';

export type Schedule = CheckSchedule;

export interface StepInput {
  /** The domain before this step. */
  domain: DomainRow;
  /** Runs completed before this run. */
  checkCount: number;
  /** Runs since the one that entered the domain's status, before this step (0 for that one). */
  statusRuns: number;
  /** The check rows before this step. */
  before: readonly CheckRow[];
  /** The checks this step observed; the others keep their rows. */
  observed: Partial<{ [T in CheckType]: CheckOutcome<T> }>;
  startedAt: Date;
  now: Date;
  /** The first step of a run counts the run. */
  counted: boolean;
  /** More of the run follows: the lease is kept and the domain is due again when it runs out (a checker that dies mid-run). */
  continuesUntil: Date | null;
  /** The next check is at this time at the latest (a certificate waiting for ACME order budget: when the hour ends). */
  checkBy?: Date | null;
  /** A certificate this step issued. */
  issued: CertificateRow | null;
  /** The renewal of a still valid certificate failed (why, and until when it stays valid): the check stays passing and says so. */
  renewalFailed?: { reason: string; validUntil: Date } | null;
  /** The run so far: what started it, the status it found and the checks its first step saw. */
  run: RunSoFar;
  schedule: Schedule;
  confirmation: ConfirmationSettings;
  edgeTarget: string;
  /** EDGE_ADDRESSES: the routing records of apex domains in the event's resource. */
  edgeAddresses: readonly string[];
  /** ACME_DNS_ZONE: the certificate CNAME in the event's resource. */
  acmeDnsZone: string | null;
}

/** A run as its steps build it up, for its row among the domain's recent runs. */
export interface RunSoFar {
  trigger: RunTrigger;
  statusBefore: DomainRow['status'];
  /** The checks as observed in this run (before confirmation), the others as the run found them. */
  checks: RunCheck[];
}

export interface Step {
  record: CheckRunRecord;
  /** The domain and its check rows after the step, for a step that follows. */
  domain: DomainRow;
  checks: CheckRow[];
  statusRuns: number;
  run: RunSoFar;
  /** Failed checks of a ready domain this step left unconfirmed, and the checks whose failure it confirmed (metrics). */
  unconfirmed: Array<{ type: CheckType; outcome: CheckOutcome }>;
  confirmed: CheckType[];
}

/** The recent runs kept per domain: a run's row goes into slot (its number modulo this), replacing the oldest. */
export const RECENT_RUN_SLOTS = 10;

function checkRow(domainId: string, type: CheckType, outcome: CheckOutcome, now: Date, streak: CheckStreak): CheckRow {
  return {
    domainId,
    type,
    status: outcome.status,
    errorCode: outcome.status === 'failing' ? outcome.errorCode : null,
    message: outcome.message,
    observedAt: outcome.status === 'pending' ? null : now,
    nextCheckAt: null,
    failedRuns: streak.failedRuns,
    failingSince: streak.failingSince,
    inconclusive: streak.inconclusive,
  };
}

/** The longest streak of failed runs among a domain's check rows: above 0 while a failure of a ready domain is being confirmed. */
export const longestStreak = (rows: readonly CheckRow[]): number => Math.max(0, ...rows.map((row) => row.failedRuns ?? 0));

const streakOf = (row: CheckRow | undefined): CheckStreak =>
  row?.failedRuns ? { failedRuns: row.failedRuns, failingSince: row.failingSince ?? null, inconclusive: row.inconclusive ?? false } : NO_STREAK;

const sameOutcome = (a: CheckRow | undefined, b: CheckRow) => a !== undefined && a.status === b.status && a.errorCode === b.errorCode && a.message === b.message;

/** A check as the run saw it, from an outcome or a kept row. */
const runCheck = (type: CheckType, seen: { status: CheckOutcome['status']; errorCode: string | null; message: string | null }): RunCheck => ({ type, status: seen.status, errorCode: seen.errorCode, message: seen.message });

export function recordStep(input: StepInput): Step {
  const { domain, now, confirmation } = input;
  // Only a served domain's failures wait for confirmation; pending_dns and attention_required fail at once.
  const confirming = domain.status === 'ready';
  const seen = CHECK_TYPES.flatMap((type) => {
    const outcome = input.observed[type];
    if (!outcome) return [];
    const kept = input.before.find((row) => row.type === type);
    // A run's second step observing a check its first step already counted is not a run more.
    const sameRun = kept?.observedAt != null && kept.observedAt.getTime() >= input.startedAt.getTime();
    const streak = confirming ? nextStreak(streakOf(kept), outcome, now, sameRun) : NO_STREAK;
    return [{ type, outcome: outcome as CheckOutcome, streak }];
  });
  const failed = seen.filter((s) => s.outcome.status === 'failing');
  const confirmed = confirming ? failed.filter((s) => failureConfirmed(s.streak, now, confirmation)).map((s) => s.type) : [];
  const unconfirmed = confirming && confirmed.length === 0 ? failed : [];

  const rows = CHECK_TYPES.map((type): CheckRow => {
    const observed = seen.find((s) => s.type === type);
    if (observed) {
      const { outcome, streak } = observed;
      if (unconfirmed.includes(observed)) {
        const message = confirmingMessage(outcome.message ?? `The ${type} check failed.`, now, streak, confirmation);
        return checkRow(domain.id, type, { status: 'passing', errorCode: null, message }, now, streak);
      }
      return checkRow(domain.id, type, outcome, now, streak);
    }
    const kept = input.before.find((row) => row.type === type);
    return kept ?? checkRow(domain.id, type, { status: 'pending', errorCode: null, message: null }, now, NO_STREAK);
  });
  const allPassing = rows.every((row) => row.status === 'passing');
  const transition = nextStatus(domain.status, allPassing);
  const status = transition.status as CheckRunRecord['status'];
  const statusChanged = status !== domain.status;
  const statusRuns = statusChanged ? 0 : input.statusRuns + (input.counted ? 1 : 0);
  const failedRuns = status === 'ready' ? longestStreak(rows) : 0;
  const delay = nextCheckDelayMs(status, { checksDone: input.checkCount + 1, statusRuns, failedRuns }, input.schedule);
  const scheduled = new Date(now.getTime() + delay);
  const nextCheckAt = input.continuesUntil ?? (input.checkBy && input.checkBy < scheduled ? input.checkBy : scheduled);
  const checks = rows.map((row) => {
    const due = row.status === 'failing' || (status === 'ready' && (row.failedRuns ?? 0) > 0);
    const withNext = { ...row, nextCheckAt: due ? nextCheckAt : null };
    if (row.type !== 'certificate' || !input.renewalFailed || row.status !== 'passing' || !input.observed.certificate) return withNext;
    // A failed renewal of a valid certificate is not a failure of the check (DECISIONS §11): it says so, and when it is tried again.
    const { reason, validUntil } = input.renewalFailed;
    const message = `${RENEWAL_FAILED_PREFIX}${now.toISOString()} (${reason.replace(/\.$/, '')}); the certificate stays valid until ${validUntil.toISOString()} and the renewal is tried again at ${nextCheckAt.toISOString()}.`;
    return { ...withNext, message };
  });

  const checksChanged = checks.some((row) => !sameOutcome(input.before.find((b) => b.type === row.type), row));
  const after: DomainRow = { ...domain, status, nextCheckAt, updatedAt: statusChanged || checksChanged || input.issued ? now : domain.updatedAt };

  const messages: OutboxMessage[] = [];
  if (transition.event) {
    messages.push({ routingKey: ROUTING_KEYS.eventEmitted, payload: domainEvent(transition.event, domain.applicationId, toDomainResource(after, checks, input), now) });
  }
  const ref = { domain_id: domain.id, hostname: domain.hostname, application_id: domain.applicationId };
  if (statusChanged) messages.push({ routingKey: ROUTING_KEYS.domainChanged, payload: { ...ref, change: DOMAIN_CHANGES.status } });
  if (input.issued) messages.push({ routingKey: ROUTING_KEYS.domainChanged, payload: { ...ref, change: DOMAIN_CHANGES.certificate } });

  // The run's row keeps what it saw, not the confirming representation: that is what an operator asks about.
  const run: RunSoFar = {
    ...input.run,
    checks: CHECK_TYPES.map((type) => {
      const observed = seen.find((s) => s.type === type);
      if (observed) return runCheck(type, observed.outcome);
      return input.run.checks.find((c) => c.type === type) ?? runCheck(type, checks.find((c) => c.type === type) as CheckRow);
    }),
  };
  const recentRun: RecentRun = {
    slot: input.checkCount % RECENT_RUN_SLOTS, startedAt: input.startedAt, durationMs: Math.max(0, now.getTime() - input.startedAt.getTime()),
    trigger: run.trigger, statusBefore: run.statusBefore, statusAfter: status, checks: run.checks,
  };

  return {
    record: {
      domainId: domain.id,
      startedAt: input.startedAt,
      status,
      nextCheckAt,
      updatedAt: after.updatedAt,
      counted: input.counted,
      leaseUntil: input.continuesUntil,
      checks,
      certificate: input.issued,
      messages,
      run: recentRun,
    },
    domain: after,
    checks,
    statusRuns,
    run,
    unconfirmed: unconfirmed.map(({ type, outcome }) => ({ type, outcome })),
    confirmed,
  };
}
