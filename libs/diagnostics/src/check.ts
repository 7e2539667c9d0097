// One diagnostic check, how it is run (timed, with a deadline) and how the
// results add up to the doctor's overall status.
import { errorMessage } from '@cds/core';

/** What one of the doctor's checks found; a domain's checks have their own statuses (pending, passing, failing). */
export const FINDING_STATUSES = { ok: 'ok', warn: 'warn', fail: 'fail' } as const;
export type FindingStatus = (typeof FINDING_STATUSES)[keyof typeof FINDING_STATUSES];

/** The doctor's report as a whole, from its findings. */
export const DOCTOR_STATUSES = { ok: 'ok', degraded: 'degraded', failing: 'failing' } as const;
export type DoctorStatus = (typeof DOCTOR_STATUSES)[keyof typeof DOCTOR_STATUSES];

/** What a check found. */
export interface Finding {
  status: FindingStatus;
  message: string;
}

/** One line of the report (field names as the operator API writes them). */
export interface CheckResult extends Finding {
  name: string;
  duration_ms: number;
}

export interface DoctorReport {
  status: DoctorStatus;
  checks: CheckResult[];
}

export interface Check {
  name: string;
  /** Past it the check fails; the probe itself is left to finish or fail on its own. */
  timeoutMs: number;
  run(): Promise<Finding>;
}

/** `failing` when any check fails, `degraded` when any warns, else `ok`. */
export function overallStatus(checks: readonly Pick<CheckResult, 'status'>[]): DoctorStatus {
  if (checks.some((check) => check.status === FINDING_STATUSES.fail)) return DOCTOR_STATUSES.failing;
  if (checks.some((check) => check.status === FINDING_STATUSES.warn)) return DOCTOR_STATUSES.degraded;
  return DOCTOR_STATUSES.ok;
}

/** Runs a check against its deadline; a thrown error is a failure with the error's message. */
export async function runCheck(check: Check): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Finding>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: FINDING_STATUSES.fail, message: `no answer within ${formatSeconds(check.timeoutMs)}` }),
      check.timeoutMs,
    );
  });
  const probe = check.run().catch((error: unknown): Finding => ({ status: FINDING_STATUSES.fail, message: errorMessage(error) }));
  try {
    const finding = await Promise.race([probe, deadline]);
    return { name: check.name, ...finding, duration_ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
