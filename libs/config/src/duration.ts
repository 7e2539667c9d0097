import { InvalidValueError } from './invalid-value';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const EXPECTED = 'must be a duration such as 500ms, 30s, 5m, 2h or 1d';

/** Parses `500ms`, `30s`, `1.5m`, `2h`, `1d` (a bare number is milliseconds) into whole milliseconds. */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw new InvalidValueError(EXPECTED);
  const unit = (match[2] ?? 'ms') as keyof typeof UNIT_MS;
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
  if (!Number.isSafeInteger(ms)) throw new InvalidValueError(EXPECTED);
  return ms;
}

/** A comma list of durations, each greater than zero, at least one. */
export function parseDurationList(text: string): number[] {
  const expected = 'must be a comma list of durations greater than zero, such as 1m,5m,1h';
  const items = text.split(',').map((item) => item.trim());
  const delays = items.map((item) => (item === '' ? Number.NaN : safeDuration(item)));
  if (delays.some((ms) => !(ms > 0))) throw new InvalidValueError(expected);
  return delays;
}

function safeDuration(text: string): number {
  try {
    return parseDuration(text);
  } catch {
    return Number.NaN;
  }
}
