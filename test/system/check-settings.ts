// The checker's schedules in the system test (DECISIONS §11), short so a run
// stays within minutes, and consistent with the faults the run injects: every
// transient fault (a SERVFAIL burst, an origin answering 503) is over well
// within the outage grace, and lasts long enough for a ready domain to be
// checked CHECK_CONFIRMATIONS times meanwhile, so the grace is what keeps it
// ready; a conclusive failure (a TXT record removed) is confirmed within
// seconds, and a domain that needs attention is checked again within seconds.
// Pure: the runner passes them to every process, the unit tests hold the
// fault schedule to them.

/** Consecutive failed runs that confirm a failure of a ready domain. */
export const CHECK_CONFIRMATIONS = 3;
/** Delays between the runs that confirm a failure: 3 runs within 3 s of the first. */
export const CONFIRM_SCHEDULE_MS = [1_000, 2_000] as const;
/** How long inconclusive failures must last before a ready domain leaves ready: three times the longest transient fault. */
export const OUTAGE_GRACE_MS = 45_000;
/** Checks of an attention_required domain, from entering the status (about a minute), then CHECK_INTERVAL_LIVE. */
export const ATTENTION_SCHEDULE_MS = [2_000, 3_000, 5_000, 10_000, 10_000, 10_000, 20_000] as const;

const duration = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/** The CHECK_* variables every process of the run gets. */
export const CHECK_SETTINGS: Readonly<Record<string, string>> = {
  CHECK_SCHEDULE_PENDING: '5s,10s,15s',
  CHECK_INTERVAL_LIVE: '60s',
  CHECK_CONFIRMATIONS: String(CHECK_CONFIRMATIONS),
  CHECK_SCHEDULE_CONFIRM: CONFIRM_SCHEDULE_MS.map(duration).join(','),
  CHECK_OUTAGE_GRACE: duration(OUTAGE_GRACE_MS),
  CHECK_SCHEDULE_ATTENTION: ATTENTION_SCHEDULE_MS.map(duration).join(','),
};

/** From a failure's first run to its CHECK_CONFIRMATIONS-th on the confirmation schedule: the sum of the first delays. */
export function confirmationSpanMs(confirmations = CHECK_CONFIRMATIONS, schedule: readonly number[] = CONFIRM_SCHEDULE_MS): number {
  let total = 0;
  for (let run = 1; run < confirmations; run++) total += schedule[Math.min(run - 1, schedule.length - 1)] ?? 0;
  return total;
}
