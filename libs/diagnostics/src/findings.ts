// The thresholds of the checks whose verdict depends on a number, as pure functions.
import { FINDING_STATUSES as S, formatSeconds, type Finding } from './check';

const MINUTE_MS = 60_000;

export const THRESHOLDS = {
  outboxWarnMs: 60_000,
  outboxFailMs: 10 * MINUTE_MS,
  queueDepthWarn: 1000,
  certificateWarnDays: 14,
  webhookOverdueWarnMs: 10 * MINUTE_MS,
  webhookOverdueFailMs: 60 * MINUTE_MS,
  clockSkewWarnMs: 2000,
  clockSkewFailMs: 30_000,
} as const;

export function migrationsFinding(pending: readonly string[], pendingIndexes: readonly string[] = []): Finding {
  if (pending.length > 0) return { status: S.fail, message: `${pending.length} pending migration(s): ${pending.join(', ')}; run \`cdctl migrate\`` };
  // Queries still work without them, slower: a warning, not a failure.
  if (pendingIndexes.length > 0) {
    return { status: S.warn, message: `${pendingIndexes.length} index(es) missing or left invalid by a failed build: ${pendingIndexes.join(', ')}; run \`cdctl migrate\`, which builds them without blocking writes` };
  }
  return { status: S.ok, message: 'the schema is current' };
}

/** Age of the oldest event still waiting in the outbox for the broker. */
export function outboxFinding(oldestUnpublished: Date | null, now: Date): Finding {
  if (!oldestUnpublished) return { status: S.ok, message: 'every event has been published' };
  const ageMs = Math.max(0, now.getTime() - oldestUnpublished.getTime());
  const age = `the oldest unpublished event is ${formatSeconds(ageMs)} old`;
  if (ageMs > THRESHOLDS.outboxFailMs) return { status: S.fail, message: `${age}: events are not reaching the broker` };
  if (ageMs > THRESHOLDS.outboxWarnMs) return { status: S.warn, message: `${age}: the relay is behind or the broker refuses them` };
  return { status: S.ok, message: age };
}

export function queueFinding(queue: string, state: { messageCount: number; consumerCount: number }): Finding {
  const counts = `${state.consumerCount} consumer(s), ${state.messageCount} message(s) waiting`;
  if (state.consumerCount === 0) return { status: S.warn, message: `${counts}: no ${queue} service is consuming` };
  if (state.messageCount > THRESHOLDS.queueDepthWarn) {
    return { status: S.warn, message: `${counts}: more than ${THRESHOLDS.queueDepthWarn} waiting; the consumers are behind` };
  }
  return { status: S.ok, message: counts };
}

/** `expiring` null: this version keeps no certificates. */
export function certificatesFinding(expiring: number | null): Finding {
  const days = THRESHOLDS.certificateWarnDays;
  if (expiring === null) return { status: S.warn, message: 'certificate store not present in this version' };
  if (expiring === 0) return { status: S.ok, message: `no certificate expires within ${days} days` };
  return { status: S.warn, message: `${expiring} certificate(s) expire within ${days} days: renewals are not keeping up` };
}

/** `backlog` null: this version has no webhook deliveries. */
export function webhooksFinding(backlog: { pending: number; oldestDueAt: Date | null } | null, now: Date): Finding {
  if (!backlog) return { status: S.ok, message: 'webhooks not present in this version' };
  const overdueMs = backlog.oldestDueAt ? now.getTime() - backlog.oldestDueAt.getTime() : 0;
  const summary = `${backlog.pending} pending deliveries`;
  if (overdueMs > THRESHOLDS.webhookOverdueFailMs) {
    return { status: S.fail, message: `${summary}, the oldest due ${formatSeconds(overdueMs)} ago: the dispatcher is not delivering` };
  }
  if (overdueMs > THRESHOLDS.webhookOverdueWarnMs) {
    return { status: S.warn, message: `${summary}, the oldest due ${formatSeconds(overdueMs)} ago: the dispatcher is behind` };
  }
  return { status: S.ok, message: summary };
}

/** `skewMs`: database clock minus local clock. */
export function clockSkewFinding(skewMs: number): Finding {
  const size = Math.abs(skewMs);
  const text = `the database clock is ${formatSeconds(size)} ${skewMs >= 0 ? 'ahead of' : 'behind'} this host`;
  if (size > THRESHOLDS.clockSkewFailMs) return { status: S.fail, message: `${text}: timestamps, rate windows and expiries disagree; fix NTP` };
  if (size > THRESHOLDS.clockSkewWarnMs) return { status: S.warn, message: `${text}: check NTP on both` };
  return { status: S.ok, message: text };
}
