// The checker's metrics: checks by type and result with their duration, ACME
// orders and their failures (also per directory, with the directories set
// aside), orders held back by the order budget, and the earliest expiry among the live
// certificates its runs saw (those of domains whose DNS checks pass: the ones
// traffic reaches and the checker renews). Every known label set is present at
// zero from the start, so a dashboard or an alert finds its series before the
// first check.
import { ACME_BUDGET_SCOPES, CHECK_STATUSES, CHECK_TYPES, FAILURE_KINDS, failureKind, type AcmeBudgetScope, type CheckOutcome, type CheckType } from '@cds/core';
import { checkerMetrics, ExpiryTracker, watchCertificateExpiry, watchDirectorySetAside } from '@cds/metrics';
import { CA_FAILURES, type CaFailure } from './certificates/acme-transport';
import type { IssuanceError } from './certificates/issuer';

export const ACME_ORDER_RESULTS = { issued: 'issued', failed: 'failed' } as const;
/** The certificate check's error codes an ACME order can end with. */
export const ACME_FAILURE_REASONS = ['certificate_issuance_failed', 'caa_forbids_issuance'] as const satisfies ReadonlyArray<IssuanceError['code']>;

export function initCheckerMetrics(): void {
  const m = checkerMetrics();
  for (const check of CHECK_TYPES) {
    for (const result of CHECK_STATUSES) m.checks.inc({ check, result }, 0);
    m.checkDuration.zero({ check });
    for (const kind of FAILURE_KINDS) m.unconfirmedFailures.inc({ check, kind }, 0);
    m.confirmedFailures.inc({ check }, 0);
  }
  for (const result of Object.values(ACME_ORDER_RESULTS)) m.acmeOrders.inc({ result }, 0);
  for (const reason of ACME_FAILURE_REASONS) m.acmeFailures.inc({ reason }, 0);
  for (const scope of Object.values(ACME_BUDGET_SCOPES)) m.acmeBudgetRefusals.inc({ scope }, 0);
}

/** One label object per check type, made once (the hot path observes four per domain). */
const CHECK_LABELS = Object.fromEntries(CHECK_TYPES.map((check) => [check, { check }])) as { [T in CheckType]: { check: T } };

/** Observes how long a check took that started at `startMs` (performance.now()). */
export function observeCheckDuration(check: CheckType, startMs: number): void {
  checkerMetrics().checkDuration.observe(CHECK_LABELS[check], (performance.now() - startMs) / 1000);
}

/** Runs one check's work and observes how long it took, failed or not. */
export function timedCheck<T>(check: CheckType, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const end = () => observeCheckDuration(check, start);
  let running: Promise<T>;
  try {
    running = work();
  } catch (err) {
    end();
    return Promise.reject(err as Error);
  }
  return running.then((result) => {
    end();
    return result;
  }, (err: unknown) => {
    end();
    throw err;
  });
}

/** Counts the checks a step observed (a run's certificate is counted once, when its outcome is final). */
export function countChecks(outcomes: Partial<{ [T in CheckType]: CheckOutcome<T> }>): void {
  const { checks } = checkerMetrics();
  for (const check of CHECK_TYPES) {
    const outcome = outcomes[check];
    if (outcome) checks.inc({ check, result: outcome.status });
  }
}

/** One finished ACME order: null when it issued, else the certificate check's error code. */
export function countAcmeOrder(failure: IssuanceError['code'] | null): void {
  const m = checkerMetrics();
  m.acmeOrders.inc({ result: failure ? ACME_ORDER_RESULTS.failed : ACME_ORDER_RESULTS.issued });
  if (failure) m.acmeFailures.inc({ reason: failure });
}

/** Every series of each ACME directory at zero, and the reader of which are set aside (DECISIONS §14). */
export function initDirectoryMetrics(directories: readonly string[], setAside: (directory: string) => boolean): void {
  const m = checkerMetrics();
  for (const directory of directories) {
    for (const result of Object.values(ACME_ORDER_RESULTS)) m.acmeDirectoryOrders.inc({ directory, result }, 0);
    for (const reason of Object.values(CA_FAILURES)) m.acmeDirectoryFailures.inc({ directory, reason }, 0);
  }
  watchDirectorySetAside(() => new Map(directories.map((directory) => [directory, setAside(directory)])));
}

/** One order sent to an ACME directory, and how it ended. */
export function countDirectoryOrder(directory: string, issued: boolean): void {
  checkerMetrics().acmeDirectoryOrders.inc({ directory, result: issued ? ACME_ORDER_RESULTS.issued : ACME_ORDER_RESULTS.failed });
}

/** A failure at the CA's side that set the directory aside. */
export function countDirectoryFailure(directory: string, reason: CaFailure): void {
  checkerMetrics().acmeDirectoryFailures.inc({ directory, reason });
}

/** One order held back by the ACME order budget, by the scope that had no slot left. */
export function countBudgetRefusal(scope: AcmeBudgetScope): void {
  checkerMetrics().acmeBudgetRefusals.inc({ scope });
}

/**
 * The certificates this checker's runs saw, read at scrape time. An entry
 * lives two live-check intervals plus a lease: every live domain is checked
 * within that time, by this replica or another.
 */
export function watchSeenCertificates(ttlMs: number, now: () => Date): { tracker: ExpiryTracker; unwatch: () => void } {
  const tracker = new ExpiryTracker(ttlMs);
  return { tracker, unwatch: watchCertificateExpiry(() => tracker.earliest(now())) };
}

/** Failed checks of a ready domain a step left unconfirmed, and the confirmations that took one to attention_required (DECISIONS §11). */
export function countConfirmation(step: { unconfirmed: ReadonlyArray<{ type: CheckType; outcome: Pick<CheckOutcome, 'inconclusive'> }>; confirmed: readonly CheckType[] }): void {
  const m = checkerMetrics();
  for (const { type, outcome } of step.unconfirmed) m.unconfirmedFailures.inc({ check: type, kind: failureKind(outcome) });
  for (const check of step.confirmed) m.confirmedFailures.inc({ check });
}
