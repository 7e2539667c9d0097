// DECISIONS §11: a `ready` domain leaves `ready` only on a confirmed failure.
// Each check keeps a streak of failed runs; a conclusive streak is confirmed
// after CHECK_CONFIRMATIONS runs, one with any inconclusive failure also needs
// CHECK_OUTAGE_GRACE to have passed since its first failed run. Pure: the
// checker reads and writes the streaks with the check rows.
import type { CheckOutcome } from './checks';
import type { CheckType, LiveDomainStatus } from './domain-status';
import type { CheckReason } from './messages';

export interface ConfirmationSettings {
  /** Consecutive failed runs that confirm a failure (CHECK_CONFIRMATIONS). */
  readonly confirmations: number;
  /** How long inconclusive failures must last (CHECK_OUTAGE_GRACE), ms. */
  readonly outageGraceMs: number;
}

/** When the checker looks at a domain again, by its status (the four CHECK_* schedules, ms). */
export interface CheckSchedule {
  readonly pending: readonly number[];
  readonly live: number;
  readonly confirm: readonly number[];
  readonly attention: readonly number[];
}

/** A check's failed runs in a row while its domain is `ready`. */
export interface CheckStreak {
  readonly failedRuns: number;
  /** The first failed run's time; null without a streak. */
  readonly failingSince: Date | null;
  /** Some failed run of the streak was inconclusive. */
  readonly inconclusive: boolean;
}

export const NO_STREAK: CheckStreak = Object.freeze({ failedRuns: 0, failingSince: null, inconclusive: false });

export const FAILURE_KINDS = ['conclusive', 'inconclusive'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export function failureKind(outcome: Pick<CheckOutcome, 'inconclusive'>): FailureKind {
  return outcome.inconclusive ? 'inconclusive' : 'conclusive';
}

/**
 * The streak after a run of a `ready` domain observed `outcome`. A passing (or
 * pending) check ends it. `sameRun`: the check was already observed in this run
 * (a run's second step), which is not a run more.
 */
export function nextStreak(before: CheckStreak, outcome: Pick<CheckOutcome, 'status' | 'inconclusive'>, observedAt: Date, sameRun: boolean): CheckStreak {
  if (outcome.status !== 'failing') return NO_STREAK;
  const inconclusive = before.inconclusive || outcome.inconclusive === true;
  if (sameRun && before.failedRuns > 0) return { ...before, inconclusive };
  return { failedRuns: before.failedRuns + 1, failingSince: before.failingSince ?? observedAt, inconclusive };
}

/** Whether the streak confirms the failure at `now`. */
export function failureConfirmed(streak: CheckStreak, now: Date, settings: ConfirmationSettings): boolean {
  if (streak.failedRuns < settings.confirmations) return false;
  if (!streak.inconclusive) return true;
  return streak.failingSince !== null && now.getTime() - streak.failingSince.getTime() >= settings.outageGraceMs;
}

/** `12:00:01Z` of a time. */
function clockTime(at: Date): string {
  return `${at.toISOString().slice(11, 19)}Z`;
}

/** `15m`, `30s`, `1h30m`, `500ms`: a duration as the configuration writes it. */
export function shortDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, seconds] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (rest >= seconds) {
      parts.push(`${Math.floor(rest / seconds)}${unit}`);
      rest %= seconds;
    }
  }
  return parts.join('');
}

/**
 * The message of a check being confirmed: what the last run saw, when, and
 * that the domain stays `ready` meanwhile (DECISIONS §11).
 */
export function confirmingMessage(seen: string, observedAt: Date, streak: CheckStreak, settings: ConfirmationSettings): string {
  const what = seen.replace(/\.$/, '');
  const progress = `${Math.min(streak.failedRuns, settings.confirmations)} of ${settings.confirmations}`;
  const grace = streak.inconclusive && streak.failingSince
    ? `, and failing for ${shortDuration(settings.outageGraceMs)} since ${clockTime(streak.failingSince)}`
    : '';
  return `${what} at ${clockTime(observedAt)}; confirming before the domain leaves ready (${progress}${grace}).`;
}

/**
 * The delay until a domain's next automatic check. `checksDone`: runs
 * completed, this one included; `statusRuns`: runs since the one that entered
 * the current status (0 for that one); `failedRuns`: the longest streak of its
 * checks while `ready` (a failure being confirmed).
 */
export function nextCheckDelayMs(
  status: LiveDomainStatus,
  runs: { checksDone: number; statusRuns: number; failedRuns: number },
  schedule: CheckSchedule,
): number {
  const step = (delays: readonly number[], index: number) => delays[Math.min(Math.max(index, 0), delays.length - 1)] ?? schedule.live;
  if (status === 'pending_dns') return step(schedule.pending, runs.checksDone - 1);
  if (status === 'ready' && runs.failedRuns > 0) return step(schedule.confirm, runs.failedRuns - 1);
  if (status === 'attention_required' && runs.statusRuns < schedule.attention.length) return schedule.attention[runs.statusRuns] ?? schedule.live;
  return schedule.live;
}

/** What started a check run, as the operator's domain lookup shows it (DECISIONS §15). */
export const RUN_TRIGGERS = ['created', 'schedule', 'recheck', 'confirm', 'edge'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/**
 * The trigger of a run: `requested` is the reason of a `domain.check.requested`
 * message, null for the scheduler. A scheduled run of a
 * `ready` domain with a failure being confirmed is a confirming run.
 */
export function runTrigger(requested: CheckReason | null, checkCount: number, status: LiveDomainStatus, failedRuns: number): RunTrigger {
  if (requested === 'created' || requested === 'recheck' || requested === 'edge') return requested;
  if (checkCount === 0) return 'created';
  if (status === 'ready' && failedRuns > 0) return 'confirm';
  return 'schedule';
}

/** A check as one run saw it (DECISIONS §15's `recent_runs[].checks`). */
export interface RunCheck {
  type: CheckType;
  status: CheckOutcome['status'];
  errorCode: string | null;
  message: string | null;
}
