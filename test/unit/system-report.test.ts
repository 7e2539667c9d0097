import { figuresMarkdown, type RunFigures } from '../system/report';

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
