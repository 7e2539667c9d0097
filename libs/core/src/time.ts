// Timestamps of the contract: resources use `Z`, event `created_at` uses `+00:00`.

/** ISO 8601 UTC with milliseconds and `Z`, e.g. 2026-01-02T03:04:05.678Z; null stays null. */
export function isoTimestamp(d: Date): string;
export function isoTimestamp(d: Date | null): string | null;
export function isoTimestamp(d: Date | null): string | null {
  return d === null ? null : d.toISOString();
}

/** The same instant written with `+00:00`, e.g. 2026-01-02T03:04:05.678+00:00. */
export function eventTimestamp(d: Date): string {
  return d.toISOString().replace(/Z$/, '+00:00');
}
