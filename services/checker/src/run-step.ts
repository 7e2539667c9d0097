// What one step of a check run writes, decided without I/O. A run has one
// step, or two when a certificate must be issued: the first records the DNS
// and origin checks (the certificate check says it is being issued), the
// second the certificate. Each step computes the status from all four checks
// as they stand after it (DECISIONS §2, the spec's transition table).
import {
  CHECK_TYPES,
  DOMAIN_CHANGES,
  domainEvent,
  nextCheckDelayMs,
  nextStatus,
  ROUTING_KEYS,
  toDomainResource,
  type CheckOutcome,
  type CheckType,
} from '@cds/core';
import type { CertificateRow, CheckRow, CheckRunRecord, DomainRow, OutboxMessage } from '@cds/data';

export interface Schedule {
  pending: readonly number[];
  live: number;
}

export interface StepInput {
  /** The domain before this step. */
  domain: DomainRow;
  /** Runs completed before this run. */
  checkCount: number;
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
  schedule: Schedule;
  edgeTarget: string;
}

export interface Step {
  record: CheckRunRecord;
  /** The domain and its check rows after the step, for a step that follows. */
  domain: DomainRow;
  checks: CheckRow[];
}

function checkRow(domainId: string, type: CheckType, outcome: CheckOutcome, now: Date): CheckRow {
  return {
    domainId,
    type,
    status: outcome.status,
    errorCode: outcome.status === 'failing' ? outcome.errorCode : null,
    message: outcome.message,
    observedAt: outcome.status === 'pending' ? null : now,
    nextCheckAt: null,
  };
}

const sameOutcome = (a: CheckRow | undefined, b: CheckRow) => a !== undefined && a.status === b.status && a.errorCode === b.errorCode && a.message === b.message;

export function recordStep(input: StepInput): Step {
  const { domain, now } = input;
  const rows = CHECK_TYPES.map((type): CheckRow => {
    const outcome = input.observed[type];
    const kept = input.before.find((row) => row.type === type);
    if (outcome) return checkRow(domain.id, type, outcome, now);
    return kept ?? checkRow(domain.id, type, { status: 'pending', errorCode: null, message: null }, now);
  });
  const allPassing = rows.every((row) => row.status === 'passing');
  const transition = nextStatus(domain.status, allPassing);
  const status = transition.status as CheckRunRecord['status'];
  const scheduled = new Date(now.getTime() + nextCheckDelayMs(status, input.checkCount + 1, input.schedule.pending, input.schedule.live));
  const nextCheckAt = input.continuesUntil ?? (input.checkBy && input.checkBy < scheduled ? input.checkBy : scheduled);
  const checks = rows.map((row) => ({ ...row, nextCheckAt: row.status === 'failing' ? nextCheckAt : null }));

  const statusChanged = status !== domain.status;
  const checksChanged = checks.some((row) => !sameOutcome(input.before.find((b) => b.type === row.type), row));
  const after: DomainRow = { ...domain, status, nextCheckAt, updatedAt: statusChanged || checksChanged || input.issued ? now : domain.updatedAt };

  const messages: OutboxMessage[] = [];
  if (transition.event) {
    messages.push({ routingKey: ROUTING_KEYS.eventEmitted, payload: domainEvent(transition.event, domain.applicationId, toDomainResource(after, checks, input.edgeTarget), now) });
  }
  const ref = { domain_id: domain.id, hostname: domain.hostname, application_id: domain.applicationId };
  if (statusChanged) messages.push({ routingKey: ROUTING_KEYS.domainChanged, payload: { ...ref, change: DOMAIN_CHANGES.status } });
  if (input.issued) messages.push({ routingKey: ROUTING_KEYS.domainChanged, payload: { ...ref, change: DOMAIN_CHANGES.certificate } });

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
    },
    domain: after,
    checks,
  };
}
