// A run's `checks` column (table domain_check_runs, migration 1760000001000):
// written by the checker's record statement, read by the operator's lookup.
import { CHECK_TYPES, type RunCheck } from '@cds/core';

/** The column's text: a JSON array of [status, error_code, message], ownership → origin. */
export function runChecksText(checks: readonly RunCheck[]): string {
  return JSON.stringify(CHECK_TYPES.map((type) => {
    const check = checks.find((c) => c.type === type);
    return check ? [check.status, check.errorCode, check.message] : ['pending', null, null];
  }));
}

/**
 * A run's `checks` column as the checker writes it: a JSON array of
 * [status, error_code, message], one per check in the order ownership,
 * routing, certificate, origin. A check the row lacks reads as pending.
 */
export function runChecksFromText(text: string): RunCheck[] {
  const entries: unknown = JSON.parse(text);
  const list: unknown[] = Array.isArray(entries) ? entries : [];
  return CHECK_TYPES.map((type, i) => {
    const entry = list[i];
    const [status, errorCode, message] = Array.isArray(entry) ? (entry as unknown[]) : [];
    return {
      type,
      status: (status ?? 'pending') as RunCheck['status'],
      errorCode: typeof errorCode === 'string' ? errorCode : null,
      message: typeof message === 'string' ? message : null,
    };
  });
}
