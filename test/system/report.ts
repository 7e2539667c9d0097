// The figures of a run as the markdown that docs/reliability.md carries
// ("Figures of the latest run"): written to figures.md beside the run's log.
import { EVENT_CLOCK_SLACK_MS, formatTable, type BreakRecord, type DomainEventRecord, type OriginOutage, type ServfailHit, type SkippedFault } from './invariants';

export interface RunFigures {
  seed: number;
  date: string;
  durationMs: number;
  faults: string[];
  /** The test's kills: the process, the pid, and how long until a new process was ready (through refused starts). */
  kills: Array<{ name: string; pid: number; atMs: number; readyAgainAfterMs: number | null; refusedStarts: number }>;
  /** What each outage took to be over, one line each, as logged. */
  recoveries: string[];
  rabbitDownMs: number | null;
  postgresDownMs: number | null;
  recoveredAfterLastFaultMs: number | null;
  events: number;
  webhookRequests: number;
  webhookDuplicates: Record<string, number>;
  traffic: {
    sent: number;
    ok: number;
    duringFaults: { sent: number; ok: number };
    inPostgresWindow: { sent: number; ok: number };
    sentAgainToTheOtherEdge: number;
    failures: Record<string, number>;
  };
  api: { requests: number; unanswered: number; statuses: Record<string, number> };
  orders: { total: number; valid: number; invalid: number; unfinished: number; reordered: number };
  /** The transient and conclusive faults on live domains (DECISIONS §11), as rows of the figures table. */
  liveFaults?: Array<{ figure: string; value: string }>;
  verdicts: Array<{ name: string; ok: boolean; summary: string }>;
}

const s = (ms: number | null) => (ms === null || !Number.isFinite(ms) ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);
const pct = (part: number, whole: number) => (whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(2)} %`);

export function figuresMarkdown(f: RunFigures): string {
  const failed = f.traffic.duringFaults.sent - f.traffic.duringFaults.ok;
  const ready = f.kills.filter((k) => k.readyAgainAfterMs !== null).map((k) => k.readyAgainAfterMs as number).sort((a, b) => a - b);
  const duplicates = Object.values(f.webhookDuplicates).reduce((a, b) => a + b, 0);
  const lines = [
    `Seed ${f.seed}, ${f.date}, ${s(f.durationMs)} from start to teardown; ${f.verdicts.every((v) => v.ok) ? 'every invariant held' : `failed: ${f.verdicts.filter((v) => !v.ok).map((v) => v.name).join('; ')}`}.`,
    '',
    '| figure | value |',
    '|---|---|',
    `| requests to ready domains while faults landed (PostgreSQL window apart) | ${f.traffic.duringFaults.sent}, of which ${failed} failed (${pct(failed, f.traffic.duringFaults.sent)}) |`,
    `| requests in the PostgreSQL restart window | ${f.traffic.inPostgresWindow.sent}, of which ${f.traffic.inPostgresWindow.sent - f.traffic.inPostgresWindow.ok} failed |`,
    `| requests sent again to the other edge (connection refused or closed) | ${f.traffic.sentAgainToTheOtherEdge} |`,
    `| webhook events / delivery requests / duplicates accepted | ${f.events} / ${f.webhookRequests} / ${duplicates} (${Object.entries(f.webhookDuplicates).map(([k, v]) => `${k} ${v}`).join(', ')}) |`,
    `| API requests / without an answer (killed replica) / 503 | ${f.api.requests} / ${f.api.unanswered} / ${f.api.statuses['503'] ?? 0} |`,
    `| ACME orders: valid / invalid / unfinished; hostnames ordered again | ${f.orders.valid} / ${f.orders.invalid} / ${f.orders.unfinished}; ${f.orders.reordered} |`,
    `| killed process replaced by a ready one, from the kill (median / max; the restart waits 2 s) | ${s(ready[Math.floor(ready.length / 2)] ?? null)} / ${s(ready[ready.length - 1] ?? null)} |`,
    `| RabbitMQ node down | ${s(f.rabbitDownMs)} |`,
    `| PostgreSQL restart (stop to accepting connections) | ${s(f.postgresDownMs)} |`,
    `| everything settled after the last fault | ${s(f.recoveredAfterLastFaultMs)} |`,
    ...(f.liveFaults ?? []).map((row) => `| ${row.figure} | ${row.value} |`),
    '',
    'Time to recover after each fault:',
    '',
    ...f.kills.map((k) => `- ${s(k.atMs)}: kill -9 ${k.name} (pid ${k.pid}), a new one ready ${s(k.readyAgainAfterMs)} later${k.refusedStarts > 0 ? ` (${k.refusedStarts} starts refused while a dependency was down)` : ''}`),
    ...f.recoveries.map((line) => `- ${line}`),
  ];
  const failures = Object.entries(f.traffic.failures).sort((a, b) => b[1] - a[1]);
  if (failures.length > 0) lines.push('', 'Failed requests by cause:', '', ...failures.map(([why, n]) => `- ${n} × ${why}`));
  lines.push('', 'Invariants:', '', '```', formatTable(['invariant', 'verdict', 'figures'], f.verdicts.map((v) => [v.name, v.ok ? 'PASS' : 'FAIL', v.summary])), '```', '');
  lines.push('Fault schedule:', '', '```', ...f.faults, '```');
  return lines.join('\n');
}

const range = (values: readonly number[]) => {
  if (values.length === 0) return 'n/a';
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  return lo === hi ? s(lo) : `${(lo / 1000).toFixed(1)}–${s(hi)}`;
};

/** The figures of the faults on live domains: the SERVFAIL bursts, the failing origin, the domains broken on purpose. */
export function liveFaultFigures(
  servfails: readonly ServfailHit[], skipped: readonly SkippedFault[], origin: OriginOutage | null, breaks: readonly BreakRecord[], events: readonly DomainEventRecord[],
): Array<{ figure: string; value: string }> {
  const broken = new Map(breaks.filter((b) => b.removedAtMs !== null).map((b) => [b.hostname, b]));
  const attention = events.filter((e) => e.type === 'domain.attention_required');
  // As the invariant counts them: an event of a broken domain from its removal on is the break's.
  const fromBreaks = attention.filter((e) => e.atMs >= (broken.get(e.hostname)?.removedAtMs ?? Number.POSITIVE_INFINITY) - EVENT_CLOCK_SLACK_MS);
  const firstAfter = (b: BreakRecord, type: string, fromMs: number | null) =>
    fromMs === null ? undefined : events.filter((e) => e.hostname === b.hostname && e.type === type && e.atMs >= fromMs - EVENT_CLOCK_SLACK_MS).sort((x, y) => x.atMs - y.atMs)[0];
  const toAttention: number[] = [];
  const toRecovered: number[] = [];
  for (const b of broken.values()) {
    const left = firstAfter(b, 'domain.attention_required', b.removedAtMs);
    if (left) toAttention.push(Math.max(0, left.atMs - (b.removedAtMs as number)));
    const back = left ? firstAfter(b, 'domain.recovered', Math.max(left.atMs, b.republishedAtMs ?? left.atMs)) : undefined;
    if (back && b.republishedAtMs !== null) toRecovered.push(Math.max(0, back.atMs - b.republishedAtMs));
  }
  return [
    {
      figure: 'hostnames answering SERVFAIL (TXT name / hostname / both; standing in for a domain not ready in time; skipped) and for how long',
      value: `${servfails.length} (${['txt', 'cname', 'both'].map((n) => servfails.filter((h) => h.names === n).length).join(' / ')}; ${servfails.filter((h) => h.insteadOf !== undefined).length}; ${skipped.length}), ${range(servfails.map((h) => h.toMs - h.fromMs))}`,
    },
    { figure: 'origin answering 503 to health probes', value: origin ? `${origin.application} for ${s(origin.toMs - origin.fromMs)}, ${origin.probesAnswered503} probes, ${origin.readyDomains.length} ready domains` : 'none' },
    { figure: 'domain.attention_required events: from the domains broken on purpose / others', value: `${fromBreaks.length} / ${attention.length - fromBreaks.length}` },
    { figure: 'broken on purpose (TXT removed; skipped): attention_required after the removal / recovered after the record was back', value: `${broken.size} domains (${breaks.length - broken.size}): ${range(toAttention)} / ${range(toRecovered)}` },
  ];
}
