import type { UseCaseContext } from '../shared/context';
import { findApplication } from './applications';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day `daysBefore` days before the UTC day of `now`, as YYYY-MM-DD. */
function utcDayBefore(now: Date, daysBefore: number): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - daysBefore * DAY_MS).toISOString().slice(0, 10);
}

/** The `days` UTC days that end today, oldest first, as YYYY-MM-DD. */
export function utcDaysEndingAt(now: Date, days: number): string[] {
  return Array.from({ length: days }, (_, i) => utcDayBefore(now, days - 1 - i));
}

/** Requests forwarded to the origin and their response bytes, per UTC day (zero days included), with totals. */
export async function getTraffic(ctx: UseCaseContext, slug: string, days: number) {
  const now = ctx.now();
  const window = utcDaysEndingAt(now, days);
  const rows = await ctx.store.run(async (r) => r.traffic.range((await findApplication(r, slug)).id, utcDayBefore(now, days - 1), utcDayBefore(now, 0)));
  const byDay = new Map(rows.map((row) => [row.day, row]));
  const entries = window.map((date) => ({ date, requests: byDay.get(date)?.requests ?? 0, response_bytes: byDay.get(date)?.responseBytes ?? 0 }));
  return {
    slug,
    days: entries,
    totals: entries.reduce((t, e) => ({ requests: t.requests + e.requests, response_bytes: t.response_bytes + e.response_bytes }), { requests: 0, response_bytes: 0 }),
  };
}
