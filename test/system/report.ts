// The figures of a run as the markdown that docs/reliability.md carries
// ("Figures of the latest run"): written to figures.md beside the run's log.
import { formatTable } from './invariants';

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
