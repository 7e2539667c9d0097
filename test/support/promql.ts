// What the tests read out of PromQL: metric names, and the series selectors
// (name plus label matchers) a dashboard or alert expression queries.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const PROMQL_WORDS = new Set(['by', 'without', 'and', 'or', 'unless', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'inf', 'nan']);

/** The expression without groupings and range durations, which hold words that are not metric names. */
const withoutGroupingsAndRanges = (expr: string) =>
  expr.replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ').replace(/\[[^\]]*\]/g, ' ');

/** Metric names in a PromQL expression: identifiers left once label matchers, groupings, ranges, strings and function calls are removed. */
export function metricNames(expr: string): string[] {
  return [...new Set(seriesSelectors(expr).map((s) => s.name))];
}

export interface SeriesSelector {
  name: string;
  /** `name{matchers}` as written, for Prometheus's /api/v1/series. */
  selector: string;
}

/** Each series selector of a PromQL expression (a metric name with its label matchers, if any). */
export function seriesSelectors(expr: string): SeriesSelector[] {
  const bare = withoutGroupingsAndRanges(expr);
  const found = new Map<string, SeriesSelector>();
  for (const m of bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[^}"]|"(?:[^"\\]|\\.)*")*\})?/g)) {
    const [whole, name = '', matchers = ''] = m;
    // A word followed by "(" is a function or aggregation; a word preceded by a digit is part of a number (1e3).
    if (!matchers && /^\s*\(/.test(bare.slice((m.index ?? 0) + whole.length))) continue;
    if (/[0-9.]$/.test(bare.slice(0, m.index ?? 0))) continue;
    if (PROMQL_WORDS.has(name.toLowerCase())) continue;
    const selector = name + matchers;
    found.set(selector, { name, selector });
  }
  return [...found.values()];
}

export interface PanelQuery {
  /** `<dashboard file>: <panel title>` */
  where: string;
  expr: string;
}

/** Every target expression of every panel of the Grafana dashboards in `dir`. */
export function dashboardQueries(dir: string): PanelQuery[] {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).flatMap((file) => {
    const board = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { panels: Array<{ title: string; targets?: Array<{ expr: string }> }> };
    return board.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `${file}: ${p.title}`, expr: t.expr })));
  });
}
