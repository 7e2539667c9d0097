import { figuresMarkdown, liveFaultFigures, type RunFigures } from '../system/report';

const figures: RunFigures = {
  seed: 42, date: '2026-01-02 03:04 UTC', durationMs: 330_000, faults: ['  15.0 s  kill -9 api-1, restarted 2 s later'],
  kills: [{ name: 'api-1', pid: 10, atMs: 15_000, readyAgainAfterMs: 2_900, refusedStarts: 0 }, { name: 'checker-2', pid: 12, atMs: 30_000, readyAgainAfterMs: 9_500, refusedStarts: 2 }],
  recoveries: ['PostgreSQL: API answering 2xx again 0.4 s after'], rabbitDownMs: 26_000, postgresDownMs: 1_200, recoveredAfterLastFaultMs: 12_000,
  events: 370, webhookRequests: 420, webhookDuplicates: { 'tenant-0': 2, 'tenant-1': 0 },
  traffic: { sent: 6000, ok: 5990, duringFaults: { sent: 4000, ok: 3995 }, inPostgresWindow: { sent: 100, ok: 98 }, sentAgainToTheOtherEdge: 30, failures: { 'ECONNRESET socket hang up': 5 } },
  api: { requests: 900, unanswered: 3, statuses: { '201': 300, '503': 4 } },
  orders: { total: 275, valid: 270, invalid: 2, unfinished: 3, reordered: 5 },
  verdicts: [{ name: 'domains', ok: true, summary: '270/270 ready' }],
};

describe('the figures of a run as markdown', () => {
  it('carries the seed, the failed requests, the duplicates and the time to recover from each fault', () => {
    const md = figuresMarkdown(figures);
    expect(md).toContain('Seed 42, 2026-01-02 03:04 UTC, 330.0 s from start to teardown; every invariant held.');
    expect(md).toContain('| 4000, of which 5 failed (0.13 %) |');
    expect(md).toContain('| 370 / 420 / 2 (tenant-0 2, tenant-1 0) |');
    expect(md).toContain('(median / max; the restart waits 2 s) | 9.5 s / 9.5 s |');
    expect(md).toContain('- 15.0 s: kill -9 api-1 (pid 10), a new one ready 2.9 s later');
    expect(md).toContain('- 30.0 s: kill -9 checker-2 (pid 12), a new one ready 9.5 s later (2 starts refused while a dependency was down)');
    expect(md).toContain('- PostgreSQL: API answering 2xx again 0.4 s after');
    expect(md).toContain('- 5 × ECONNRESET socket hang up');
    expect(md).toContain('domains   | PASS    | 270/270 ready');
  });

  it('names the invariants that failed', () => {
    expect(figuresMarkdown({ ...figures, verdicts: [{ name: 'webhooks', ok: false, summary: '' }] })).toContain('; failed: webhooks.');
  });
});

describe('the figures of the faults on live domains', () => {
  it('counts the SERVFAIL bursts, the failing origin, and the attention_required events from the breaks and the others', () => {
    const rows = liveFaultFigures(
      [{ hostname: 'a', names: 'txt', fromMs: 10_000, toMs: 14_000 }, { hostname: 'b', names: 'both', fromMs: 20_000, toMs: 29_500, insteadOf: 'h' }],
      [{ hostname: 'c', reason: 'not ready by 60.0 s' }],
      { application: 'tenant-2', fromMs: 40_000, toMs: 52_000, probesAnswered503: 33, readyDomains: ['d', 'e'] },
      [{ hostname: 'f', removedAtMs: 70_000, republishedAtMs: 75_000 }, { hostname: 'g', removedAtMs: null, republishedAtMs: null, skipped: 'not ready' }],
      [
        { id: '1', type: 'domain.attention_required', hostname: 'f', atMs: 73_000 },
        { id: '2', type: 'domain.recovered', hostname: 'f', atMs: 77_500 },
        { id: '3', type: 'domain.attention_required', hostname: 'x', atMs: 20_000 },
        // Before its break: not the break's.
        { id: '4', type: 'domain.attention_required', hostname: 'f', atMs: 30_000 },
      ],
    );
    expect(rows.map((r) => r.value)).toEqual([
      '2 (1 / 0 / 1; 1; 1), 4.0–9.5 s',
      'tenant-2 for 12.0 s, 33 probes, 2 ready domains',
      '1 / 2',
      '1 domains (1): 3.0 s / 2.5 s',
    ]);
    const md = figuresMarkdown({ ...figures, liveFaults: rows });
    expect(md).toContain('| origin answering 503 to health probes | tenant-2 for 12.0 s, 33 probes, 2 ready domains |');
  });
});
