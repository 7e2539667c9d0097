import {
  evaluateApiAnswers, evaluateAvailability, evaluateBreaks, evaluateDomains, evaluateLiveDomains, evaluateOrders, evaluateProcesses, evaluateRecovery, evaluateWebhooks,
  formatTable, invariantTable, type BreakRecord, type BreaksInput, type DomainEventRecord, type LiveDomainsInput, type ObservedCheck, type ObservedDomain,
} from '../system/invariants';

const passing = (type: string): ObservedCheck => ({ type, status: 'passing', error_code: null });
const failing = (type: string, code: string): ObservedCheck => ({ type, status: 'failing', error_code: code });
const allPassing = ['ownership', 'routing', 'certificate', 'origin'].map(passing);

describe('domains invariant', () => {
  const ready: ObservedDomain = { hostname: 'a.example.com', dns: 'correct', deleted: false, status: 'ready', checks: allPassing, edges: [null, null] };
  const noTxt: ObservedDomain = {
    hostname: 'b.example.com', dns: 'no-txt', deleted: false, status: 'pending_dns', edges: [],
    checks: [failing('ownership', 'txt_record_not_found'), passing('routing'), { type: 'certificate', status: 'pending', error_code: null }],
  };
  const wrongCname: ObservedDomain = { ...noTxt, hostname: 'c.example.com', dns: 'wrong-cname', checks: [passing('ownership'), failing('routing', 'cname_target_mismatch')] };
  const gone: ObservedDomain = { ...ready, hostname: 'd.example.com', deleted: true, status: 'deleting', edges: [] };

  it('holds when published domains are ready on every edge and the others pending with the right codes', () => {
    const r = evaluateDomains([ready, noTxt, wrongCname, gone]);
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.summary).toBe("1/1 ready and served by all edges with Pebble's chain; 2/2 pending_dns with the expected codes; 1 deleted");
  });

  it('names a published domain that is not ready, or not served by one edge', () => {
    const r = evaluateDomains([{ ...ready, status: 'pending_dns', checks: [passing('ownership'), failing('certificate', 'certificate_issuance_failed')] }, { ...ready, hostname: 'e.example.com', edges: [null, 'status 503'] }]);
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      'a.example.com: published correctly, status pending_dns (ownership passing, certificate failing certificate_issuance_failed)',
      'e.example.com: ready, but edge 2: status 503',
    ]);
  });

  it('names a wrongly published domain with other codes, or another status', () => {
    const r = evaluateDomains([{ ...noTxt, checks: [failing('ownership', 'txt_record_mismatch'), passing('routing')] }, { ...wrongCname, status: 'ready' }]);
    expect(r.problems).toEqual([
      'b.example.com (no-txt): ownership failing txt_record_mismatch, expected failing txt_record_not_found',
      'c.example.com (wrong-cname): status ready',
    ]);
  });

  it('names a deleted domain that is still live', () => {
    expect(evaluateDomains([{ ...gone, status: 'ready' }]).problems).toEqual(['d.example.com: deleted, but its status is ready']);
  });
});

describe('webhooks invariant', () => {
  const events = [{ id: 'e1', application: 'a' }, { id: 'e2', application: 'a' }, { id: 'e3', application: 'b' }];
  const subs = [{ application: 'a', receiver: 'ra' }, { application: 'b', receiver: 'rb' }];

  it('holds with duplicates and failed attempts, and counts the duplicates', () => {
    const { result, duplicates } = evaluateWebhooks(events, subs, [
      { receiver: 'ra', eventId: 'e1', verified: true, status: 500 },
      { receiver: 'ra', eventId: 'e1', verified: true, status: 200 },
      { receiver: 'ra', eventId: 'e1', verified: true, status: 200 },
      { receiver: 'ra', eventId: 'e2', verified: true, status: 204 },
      { receiver: 'rb', eventId: 'e3', verified: true, status: 200 },
    ]);
    expect(result.problems).toEqual([]);
    expect(duplicates).toEqual({ ra: 1, rb: 0 });
    expect(result.summary).toBe('ra 2/2 (+1 dup); rb 1/1 (+0 dup); 5 requests, 0 unverified, 1 duplicates');
  });

  it('names a missing event, one of another application, and a bad signature', () => {
    const { result } = evaluateWebhooks(events, subs, [
      { receiver: 'ra', eventId: 'e1', verified: true, status: 200 },
      { receiver: 'ra', eventId: 'e2', verified: true, status: 500 },
      { receiver: 'ra', eventId: 'e3', verified: true, status: 200 },
      { receiver: 'rb', eventId: 'e3', verified: false, status: 200 },
    ]);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      'rb: event e3 arrived with a signature that does not verify',
      'ra: 1 of 2 events never accepted (e2)',
      'ra: received event e3, which belongs to b',
      'rb: 1 of 1 events never accepted (e3)',
    ]);
  });
});

describe('recovery invariant', () => {
  it('holds when everything is published, delivered and no letter is dead', () => {
    expect(evaluateRecovery({ unpublishedOutbox: 0, setAsideOutbox: 0, deadLetterQueues: [{ queue: 'checker.dead', messages: 0 }], pendingDeliveries: 0 }).ok).toBe(true);
  });

  it('names what is left', () => {
    const r = evaluateRecovery({ unpublishedOutbox: 3, setAsideOutbox: 1, deadLetterQueues: [{ queue: 'checker.dead', messages: 2 }], pendingDeliveries: 4 });
    expect(r.problems).toEqual([
      '3 outbox rows still unpublished',
      '1 outbox rows set aside (refused by the message catalog)',
      'dead-letter queue checker.dead holds 2 messages',
      '4 webhook deliveries still pending',
    ]);
    expect(evaluateRecovery({ unpublishedOutbox: 0, setAsideOutbox: 0, deadLetterQueues: [], pendingDeliveries: 0 }).ok).toBe(false);
  });
});

describe('ACME orders invariant', () => {
  it('allows one more order per failed one', () => {
    const r = evaluateOrders([
      { hostname: 'a', outcome: 'valid' },
      { hostname: 'b', outcome: 'invalid' }, { hostname: 'b', outcome: 'valid' },
      { hostname: 'c', outcome: 'unfinished' }, { hostname: 'c', outcome: 'unfinished' }, { hostname: 'c', outcome: 'valid' },
    ], ['a', 'b', 'c']);
    expect(r.problems).toEqual([]);
    expect(r.summary).toBe('6 orders for 3 hostnames: 3 valid, 1 invalid, 2 unfinished; 2 hostnames ordered again');
  });

  it('names two certificates for one hostname, and an order for a name never registered', () => {
    const r = evaluateOrders([{ hostname: 'a', outcome: 'valid' }, { hostname: 'a', outcome: 'valid' }, { hostname: 'z', outcome: 'valid' }], ['a']);
    expect(r.problems).toEqual(['a: 2 certificates issued (2 orders)', 'an order for z, which the run never registered']);
  });
});

describe('availability invariant', () => {
  const samples = (n: number, atMs: number, ok: boolean, problem?: string) => Array.from({ length: n }, () => ({ atMs, ok, ...(problem ? { problem } : {}) }));
  const faults = { fromMs: 10_000, toMs: 100_000 };
  const pg = { fromMs: 50_000, toMs: 60_000 };

  it('counts only the fault window, and the PostgreSQL window apart', () => {
    const r = evaluateAvailability([...samples(995, 20_000, true), ...samples(5, 30_000, false, 'reset'), ...samples(50, 55_000, false), ...samples(100, 5_000, false)], faults, pg);
    expect(r.result.ok).toBe(true);
    expect(r.outside).toEqual({ sent: 1000, ok: 995 });
    expect(r.inPostgresWindow).toEqual({ sent: 50, ok: 0 });
  });

  it('fails under the threshold and groups the reasons', () => {
    const r = evaluateAvailability([...samples(990, 20_000, true), ...samples(7, 30_000, false, 'status 503'), ...samples(3, 30_000, false, 'reset')], faults, pg);
    expect(r.result.ok).toBe(false);
    expect(r.result.problems).toEqual(['10 of 1000 requests failed (1.00 %), more than 0.5 %', '7 × status 503', '3 × reset']);
  });

  it('fails when nothing was measured', () => {
    expect(evaluateAvailability([], faults, pg).result.ok).toBe(false);
  });
});

describe('API answers invariant', () => {
  const pg = { fromMs: 50_000, toMs: 60_000 };

  it('allows 503 in the PostgreSQL window and unanswered requests', () => {
    const r = evaluateApiAnswers([{ atMs: 55_000, status: 503, what: 'POST' }, { atMs: 10_000, status: 201, what: 'POST' }, { atMs: 20_000, status: 0, what: 'GET' }], pg);
    expect(r.problems).toEqual([]);
  });

  it('names a 500, and a 503 outside the window', () => {
    const r = evaluateApiAnswers([{ atMs: 55_000, status: 500, what: 'POST /v1/domains' }, { atMs: 70_000, status: 503, what: 'GET /v1/domains' }], pg);
    expect(r.problems).toEqual(['500 at 55.0 s: POST /v1/domains', '503 outside the PostgreSQL window at 70.0 s: GET /v1/domains']);
  });
});

describe('processes invariant', () => {
  it('tells crashes from kills and refused starts', () => {
    const r = evaluateProcesses([
      { name: 'api-1', pid: 10, killedByTest: true, wasReady: true, code: null, signal: 'SIGKILL', atMs: 15_000 },
      { name: 'api-1', pid: 11, killedByTest: false, wasReady: false, code: 1, signal: null, atMs: 17_500 },
      { name: 'checker-2', pid: 12, killedByTest: false, wasReady: true, code: 1, signal: null, atMs: 40_000 },
    ]);
    expect(r.problems).toEqual(['checker-2 (pid 12) exited at 40.0 s with code 1']);
    expect(r.summary).toBe('1 killed by the test, 1 crashed, 1 starts refused while a dependency was down');
  });
});

describe('tables', () => {
  it('pads columns', () => {
    expect(formatTable(['a', 'bb'], [['xyz', '1'], ['q', '']])).toBe('a   | bb\n----+---\nxyz | 1\nq   |');
  });

  it('prints one row per invariant with its verdict', () => {
    const table = invariantTable([{ name: 'one', ok: true, summary: 'fine', problems: [] }, { name: 'two', ok: false, summary: 'bad', problems: ['x'] }]);
    expect(table.split('\n')).toEqual(['invariant | verdict | figures', '----------+---------+--------', 'one       | PASS    | fine', 'two       | FAIL    | bad']);
  });
});

describe('ACME orders invariant, overlap', () => {
  it('names a second order placed while the first was under way', () => {
    const r = evaluateOrders([
      { hostname: 'a', outcome: 'unfinished', span: { first: 1, last: 9 } },
      { hostname: 'a', outcome: 'valid', span: { first: 5, last: 12 } },
      { hostname: 'b', outcome: 'unfinished', span: { first: 2, last: 3 } },
      { hostname: 'b', outcome: 'valid', span: { first: 20, last: 25 } },
    ], ['a', 'b']);
    expect(r.problems).toEqual(['a: a second order was placed while the first was still under way']);
  });
});

describe('live domains invariant (DECISIONS §11: transient faults)', () => {
  const domain = (hostname: string, status = 'ready', extra: Partial<ObservedDomain> = {}): ObservedDomain =>
    ({ hostname, dns: 'correct', deleted: false, status, checks: allPassing, edges: [null, null], ...extra });
  const event = (id: string, type: string, hostname: string, atMs: number): DomainEventRecord => ({ id, type, hostname, atMs });
  const base: LiveDomainsInput = {
    domains: [domain('s1.example.com'), domain('s2.example.com'), domain('o1.example.com'), domain('o2.example.com'), domain('b1.example.com'), domain('x.example.com')],
    events: [
      event('e1', 'domain.ready', 's1.example.com', 20_000),
      // The domain broken on purpose leaves ready after its removal (a run may stamp its start just before).
      event('e2', 'domain.attention_required', 'b1.example.com', 99_000),
      event('e3', 'domain.recovered', 'b1.example.com', 110_000),
    ],
    servfails: [
      { hostname: 's1.example.com', names: 'txt', fromMs: 50_000, toMs: 56_000 },
      { hostname: 's2.example.com', names: 'both', fromMs: 70_000, toMs: 80_000 },
    ],
    servfailsSkipped: [],
    origin: { application: 'tenant-1', fromMs: 60_000, toMs: 72_000, probesAnswered503: 40, readyDomains: ['o1.example.com', 'o2.example.com'] },
    breaks: [{ hostname: 'b1.example.com', removedAtMs: 100_000, republishedAtMs: 105_000 }],
    sampled: {
      's1.example.com': { maxFailedRuns: 4, failedChecks: ['ownership'], attentionAtMs: null },
      'o1.example.com': { maxFailedRuns: 3, failedChecks: ['origin'], attentionAtMs: null },
      'b1.example.com': { maxFailedRuns: 2, failedChecks: ['ownership'], attentionAtMs: 100_500 },
    },
    streaksSampled: true,
    graceMs: 45_000,
  };

  it('holds when only the domains broken on purpose left ready, after their break, and counts what each fault did', () => {
    const r = evaluateLiveDomains(base);
    expect(r.problems).toEqual([]);
    expect(r.summary).toBe(
      "2 hostnames SERVFAIL'd 6.0–10.0 s (TXT 1, CNAME 0, both 1; 1/2 seen failing by the checker, up to 4 failed runs in a row), 0 left ready; "
      + 'origin of tenant-1 503 for 12.0 s (40 probes; 1/2 seen failing by the checker, up to 3 failed runs in a row), 0/2 left ready; '
      + '0 domain.attention_required events but for the domains broken on purpose',
    );
  });

  it('names an attention_required event of a SERVFAIL\'d domain, of a domain under the failing origin, and of one no test fault hit', () => {
    const r = evaluateLiveDomains({
      ...base,
      events: [...base.events, event('e4', 'domain.attention_required', 's2.example.com', 76_000), event('e5', 'domain.attention_required', 'o2.example.com', 70_000), event('e6', 'domain.attention_required', 'x.example.com', 90_000)],
    });
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      's2.example.com: domain.attention_required at 76.0 s (SERVFAIL (both) 70.0 s–80.0 s)',
      'o2.example.com: domain.attention_required at 70.0 s (origin of tenant-1 503 60.0 s–72.0 s)',
      "x.example.com: domain.attention_required at 90.0 s (no fault of the test on it but the deployment's)",
    ]);
    expect(r.summary).toContain('1 left ready; origin');
    expect(r.summary).toContain('1/2 left ready; 3 domain.attention_required events');
  });

  it('counts an attention_required event of a broken domain before its break as leaving ready', () => {
    const r = evaluateLiveDomains({ ...base, events: [...base.events, event('e7', 'domain.attention_required', 'b1.example.com', 60_000)] });
    expect(r.problems).toEqual(["b1.example.com: domain.attention_required at 60.0 s (no fault of the test on it but the deployment's)"]);
  });

  it('names a hit domain seen attention_required without an event, or not ready at the end', () => {
    const r = evaluateLiveDomains({
      ...base,
      domains: [...base.domains.filter((d) => d.hostname !== 'o1.example.com'), domain('o1.example.com', 'attention_required')],
      sampled: { ...base.sampled, 's1.example.com': { maxFailedRuns: 3, failedChecks: ['ownership'], attentionAtMs: 55_000 } },
    });
    expect(r.problems).toEqual([
      's1.example.com: seen attention_required at 55.0 s without an event (SERVFAIL (txt) 50.0 s–56.0 s)',
      'o1.example.com: origin of tenant-1 503 60.0 s–72.0 s; status attention_required at the end',
    ]);
  });

  it('counts the bursts that stood in for a scheduled domain not ready in time', () => {
    const r = evaluateLiveDomains({ ...base, servfails: [...base.servfails.slice(0, 1), { ...(base.servfails[1] as LiveDomainsInput['servfails'][number]), insteadOf: 'late.example.com' }] });
    expect(r.ok).toBe(true);
    expect(r.summary).toContain('(TXT 1, CNAME 0, both 1; 1 standing in for one not ready yet; 1/2 seen failing');
  });

  it('does not ask a deleted domain to be ready at the end', () => {
    const r = evaluateLiveDomains({ ...base, domains: [...base.domains.filter((d) => d.hostname !== 'o2.example.com'), domain('o2.example.com', 'deleting', { deleted: true })] });
    expect(r.problems).toEqual([]);
  });

  it('fails when the faults were not transient, not carried out, or never reached the checker', () => {
    expect(evaluateLiveDomains({ ...base, servfails: [{ hostname: 's1.example.com', names: 'txt', fromMs: 50_000, toMs: 96_000 }] }).problems)
      .toEqual(["s1.example.com: the test's SERVFAIL lasted 46.0 s, not shorter than the grace 45.0 s"]);
    expect(evaluateLiveDomains({ ...base, servfails: [], servfailsSkipped: [{ hostname: 's1.example.com', reason: 'not ready by 80.0 s' }] }).problems)
      .toEqual(['no SERVFAIL burst was carried out (1 skipped: not ready by 80.0 s)']);
    expect(evaluateLiveDomains({ ...base, sampled: {} }).problems)
      .toEqual(["the checker recorded no failed run of any of the 2 SERVFAIL'd domains: the fault never reached it"]);
    // Without the streak columns, only statuses are sampled: nothing to require of them.
    const r = evaluateLiveDomains({ ...base, sampled: {}, streaksSampled: false, origin: null });
    expect(r.problems).toEqual([]);
    expect(r.summary).toContain('streaks not readable');
    expect(r.summary).toContain('no failing origin');
  });
});

describe('conclusive failures invariant (DECISIONS §11: a removed TXT record)', () => {
  const ready = (hostname: string, status = 'ready'): ObservedDomain => ({ hostname, dns: 'correct', deleted: false, status, checks: allPassing, edges: [null, null] });
  const broken = (hostname: string, removedAtMs: number | null, republishedAtMs: number | null): BreakRecord => ({ hostname, removedAtMs, republishedAtMs });
  const base: BreaksInput = {
    breaks: [broken('a.example.com', 60_000, 65_000), broken('b.example.com', 90_000, 96_000)],
    events: [
      { id: 'a0', type: 'domain.attention_required', hostname: 'a.example.com', atMs: 30_000 },
      { id: 'a1', type: 'domain.attention_required', hostname: 'a.example.com', atMs: 63_200 },
      { id: 'a2', type: 'domain.recovered', hostname: 'a.example.com', atMs: 67_000 },
      { id: 'b1', type: 'domain.attention_required', hostname: 'b.example.com', atMs: 94_100 },
      { id: 'b2', type: 'domain.recovered', hostname: 'b.example.com', atMs: 98_500 },
    ],
    accepted: new Set(['a0', 'a1', 'a2', 'b1', 'b2']),
    domains: [ready('a.example.com'), ready('b.example.com')],
    sampled: { 'a.example.com': { maxFailedRuns: 2, failedChecks: ['ownership'], attentionAtMs: 63_500 } },
    streaksSampled: true,
  };

  it('holds when each broken domain left ready, recovered, and both events were accepted', () => {
    const r = evaluateBreaks(base);
    expect(r.problems).toEqual([]);
    expect(r.summary).toBe(
      '2 broken conclusively (TXT removed): 2/2 attention_required (3.2–4.1 s after the removal; up to 2 failed runs seen while still ready), '
      + '2/2 recovered (2.0–2.5 s after the record was back), 2/2 with both events accepted by the receiver',
    );
  });

  it('names a domain that never left ready, one that never recovered, an event never accepted, and a status other than ready at the end', () => {
    const r = evaluateBreaks({
      ...base,
      events: base.events.filter((e) => e.id !== 'a1' && e.id !== 'b2'),
      accepted: new Set(['a0', 'a2']),
      domains: [ready('a.example.com'), ready('b.example.com', 'attention_required')],
    });
    expect(r.problems).toEqual([
      'a.example.com: TXT record removed at 60.0 s, no domain.attention_required followed',
      'b.example.com: domain.attention_required at 94.1 s, no domain.recovered after its TXT record was published again at 96.0 s',
      'b.example.com: domain.attention_required b1 never accepted by its receiver',
      'b.example.com: status attention_required at the end, after its TXT record was published again',
    ]);
  });

  it('reports skipped breaks, and fails when none was carried out', () => {
    const some = evaluateBreaks({ ...base, breaks: [...base.breaks, { ...broken('c.example.com', null, null), skipped: 'not ready by 120.0 s' }] });
    expect(some.ok).toBe(true);
    expect(some.summary).toMatch(/^2 broken conclusively \(TXT removed\), 1 skipped \(no domain ready\): 2\/2/);
    const none = evaluateBreaks({ ...base, breaks: [{ ...broken('c.example.com', null, null), skipped: 'not ready by 120.0 s' }] });
    expect(none.problems).toEqual(['no domain was broken: c.example.com not ready by 120.0 s']);
  });
});
