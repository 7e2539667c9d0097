import { CERTIFICATE_ISSUING_MESSAGE, ROUTING_KEYS, type CheckOutcome } from '@cds/core';
import type { CertificateRow, CheckRow, DomainRow } from '@cds/data';
import { recordStep, type Step, type StepInput } from './run-step';

const T0 = new Date('2026-06-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const passing = { status: 'passing', errorCode: null, message: null } as const;
const failing = (errorCode: string, message = 'nope') => ({ status: 'failing' as const, errorCode: errorCode as never, message });
const issuing: CheckOutcome<'certificate'> = { status: 'pending', errorCode: null, message: CERTIFICATE_ISSUING_MESSAGE };

const domain: DomainRow = {
  id: '0b7c8a52-3a8e-4a43-9d7e-6f2f1f0a9a01', applicationId: 'a4b0f5b2-8d51-4d4c-9d62-0c4f5a6b7c8d', hostname: 'shop.example.com', reference: 'ws_1',
  status: 'pending_dns', challengeToken: 'ab'.repeat(32), metadata: { plan: 'pro' }, redirectTo: null, createdAt: T0, updatedAt: T0, deletedAt: null, nextCheckAt: T0,
};
const pendingRows: CheckRow[] = (['ownership', 'routing', 'certificate', 'origin'] as const).map((type) => ({
  domainId: domain.id, type, status: 'pending', errorCode: null, message: null, observedAt: null, nextCheckAt: null,
}));
const certificate: CertificateRow = {
  hostname: domain.hostname, domainId: domain.id, issuer: 'internal', pemChain: 'pem', keySealed: 'sealed', notBefore: T0, notAfter: at(90 * 86_400_000), createdAt: at(2000),
};

function input(overrides: Partial<StepInput>): StepInput {
  return {
    domain, checkCount: 0, statusRuns: 0, before: pendingRows, observed: {}, startedAt: at(0), now: at(1000), counted: true, continuesUntil: null, issued: null,
    schedule: { pending: [60_000, 120_000], live: 600_000, confirm: [30_000, 60_000], attention: [20_000, 40_000] }, confirmation: { confirmations: 3, outageGraceMs: 900_000 },
    run: { trigger: 'schedule', statusBefore: (overrides.domain ?? domain).status, checks: [] }, edgeTarget: 'edge.example.net', edgeAddresses: [], acmeDnsZone: null, ...overrides,
  };
}

describe('recordStep', () => {
  test('a first step that issues next: DNS and origin recorded, the certificate being issued, the lease kept until the run goes on', () => {
    const step = recordStep(input({ observed: { ownership: passing, routing: passing, certificate: issuing, origin: passing }, continuesUntil: at(31_000) }));
    expect(step.record).toMatchObject({ status: 'pending_dns', counted: true, leaseUntil: at(31_000), nextCheckAt: at(31_000), updatedAt: at(1000), certificate: null, messages: [] });
    expect(step.record.checks.map((c) => [c.type, c.status, c.observedAt])).toEqual([
      ['ownership', 'passing', at(1000)], ['routing', 'passing', at(1000)], ['certificate', 'pending', null], ['origin', 'passing', at(1000)],
    ]);
  });

  test('the second step: only the certificate is new; all four passing make the domain ready with its event and fan-out', () => {
    const first = recordStep(input({ observed: { ownership: passing, routing: passing, certificate: issuing, origin: passing }, continuesUntil: at(31_000) }));
    const second = recordStep(input({ domain: first.domain, before: first.checks, observed: { certificate: passing }, now: at(3000), counted: false, issued: certificate }));
    expect(second.record).toMatchObject({ status: 'ready', counted: false, leaseUntil: null, nextCheckAt: at(3000 + 600_000), updatedAt: at(3000), certificate });
    // The DNS checks keep the time they were observed.
    expect(second.record.checks.map((c) => [c.type, c.status, c.observedAt])).toEqual([
      ['ownership', 'passing', at(1000)], ['routing', 'passing', at(1000)], ['certificate', 'passing', at(3000)], ['origin', 'passing', at(1000)],
    ]);
    const [event, status, cert] = second.record.messages;
    expect(event?.routingKey).toBe(ROUTING_KEYS.eventEmitted);
    expect(event?.payload).toMatchObject({ type: 'domain.ready', application_id: domain.applicationId, data: { domain: { id: domain.id, status: 'ready', metadata: { plan: 'pro' } } } });
    expect((event?.payload as { data: { domain: { checks: Array<{ status: string }> } } }).data.domain.checks.map((c) => c.status)).toEqual(['passing', 'passing', 'passing', 'passing']);
    expect(status).toEqual({ routingKey: ROUTING_KEYS.domainChanged, payload: { domain_id: domain.id, hostname: domain.hostname, application_id: domain.applicationId, change: 'status' } });
    expect(cert?.payload).toMatchObject({ change: 'certificate' });
  });

  const ready = { ...domain, status: 'ready' as const };
  const allPassing = { ownership: passing, routing: passing, certificate: passing, origin: passing };
  const passingRows = pendingRows.map((row) => ({ ...row, status: 'passing' as const, observedAt: at(0) }));
  /** Runs of a ready domain, one a minute, each observing `observed`; the steps in order. */
  function readyRuns(observed: StepInput['observed'][], confirmations = 3) {
    const steps: ReturnType<typeof recordStep>[] = [];
    let current: { domain: DomainRow; checks: CheckRow[]; statusRuns: number } = { domain: ready, checks: passingRows, statusRuns: 4 };
    observed.forEach((seen, i) => {
      const step = recordStep(input({
        domain: current.domain, before: current.checks, statusRuns: current.statusRuns, checkCount: 5 + i, observed: seen,
        startedAt: at(i * 60_000), now: at(i * 60_000 + 1000), confirmation: { confirmations, outageGraceMs: 900_000 },
      }));
      steps.push(step);
      current = step;
    });
    return steps;
  }

  test('a ready domain with a conclusive failure stays ready, passing with a confirming message, until the third failed run', () => {
    const missing = { ...allPassing, ownership: failing('txt_record_not_found', 'No TXT record found at _custom-domain-challenge.shop.example.com.') };
    const [one, two, three] = readyRuns([missing, missing, missing]) as [Step, Step, Step];
    for (const [step, n] of [[one, 1], [two, 2]] as const) {
      expect(step.record.status).toBe('ready');
      expect(step.record.messages).toEqual([]);
      const ownership = step.record.checks.find((c) => c.type === 'ownership');
      expect(ownership).toMatchObject({ status: 'passing', errorCode: null, failedRuns: n, inconclusive: false, message: expect.stringContaining(`confirming before the domain leaves ready (${n} of 3)`) });
      expect(ownership?.nextCheckAt).toEqual(step.record.nextCheckAt);
      expect(step.unconfirmed.map((u) => u.type)).toEqual(['ownership']);
    }
    // CHECK_SCHEDULE_CONFIRM: 30 s after the first failed run, then 1 m.
    expect(one?.record.nextCheckAt).toEqual(at(1000 + 30_000));
    expect(two?.record.nextCheckAt).toEqual(at(61_000 + 60_000));
    expect(three?.record.status).toBe('attention_required');
    expect(three?.confirmed).toEqual(['ownership']);
    expect(three?.record.checks.find((c) => c.type === 'ownership')).toMatchObject({ status: 'failing', errorCode: 'txt_record_not_found', failedRuns: 3 });
    expect(three?.record.messages.map((m) => (m.payload as { type?: string; change?: string }).type ?? (m.payload as { change: string }).change)).toEqual(['domain.attention_required', 'status']);
    // CHECK_SCHEDULE_ATTENTION from entering the status.
    expect(three?.record.nextCheckAt).toEqual(at(121_000 + 20_000));
    expect(three?.statusRuns).toBe(0);
  });

  test('CHECK_CONFIRMATIONS=1 confirms at once; attention_required then walks its schedule and recovers on one passing run', () => {
    const missing = { ...allPassing, ownership: failing('txt_record_not_found') };
    const [one, two, three, four, five] = readyRuns([missing, missing, missing, missing, allPassing], 1);
    expect(one?.record.status).toBe('attention_required');
    expect([two, three, four].map((s) => [s?.record.status, s?.statusRuns, s?.record.nextCheckAt])).toEqual([
      ['attention_required', 1, at(61_000 + 40_000)], ['attention_required', 2, at(121_000 + 600_000)], ['attention_required', 3, at(181_000 + 600_000)],
    ]);
    expect(five?.record.status).toBe('ready');
    expect(five?.record.messages.map((m) => (m.payload as { type?: string }).type).filter(Boolean)).toEqual(['domain.recovered']);
    expect(five?.record.nextCheckAt).toEqual(at(241_000 + 600_000));
  });

  test('a passing run clears the count: two failures, a pass, two failures never leave ready', () => {
    const missing = { ...allPassing, routing: failing('cname_not_found') };
    const steps = readyRuns([missing, missing, allPassing, missing, missing]);
    expect(steps.map((s) => s.record.status)).toEqual(['ready', 'ready', 'ready', 'ready', 'ready']);
    expect(steps.map((s) => s.record.checks.find((c) => c.type === 'routing')?.failedRuns)).toEqual([1, 2, 0, 1, 2]);
    expect(steps.flatMap((s) => s.record.messages)).toEqual([]);
  });

  test('inconclusive failures keep the domain ready until the grace has passed as well', () => {
    const blip = { ...allPassing, origin: { status: 'failing' as const, errorCode: 'origin_error_status' as const, message: 'GET https://o/health: answered 503.', inconclusive: true as const } };
    const steps = readyRuns(Array.from({ length: 17 }, () => blip));
    // Runs a minute apart: the first failed at 1 s, the grace (15 m) has passed at the run of 16 m 1 s.
    expect(steps.slice(0, 15).every((s) => s.record.status === 'ready')).toBe(true);
    expect(steps[15]?.record.status).toBe('attention_required');
    expect(steps[3]?.record.checks.find((c) => c.type === 'origin')).toMatchObject({
      status: 'passing', inconclusive: true, failedRuns: 4, message: expect.stringMatching(/answered 503 at 10:03:01Z; confirming .*\(3 of 3, and failing for 15m since 10:00:01Z\)/),
    });
    expect(steps[3]?.unconfirmed).toEqual([{ type: 'origin', outcome: blip.origin }]);
  });

  test('a pending_dns domain fails at once, with no streak', () => {
    const step = recordStep(input({ observed: { ownership: failing('txt_record_not_found'), routing: passing, certificate: passing, origin: passing } }));
    expect(step.record.checks.find((c) => c.type === 'ownership')).toMatchObject({ status: 'failing', failedRuns: 0 });
    expect(step.unconfirmed).toEqual([]);
  });

  test('the run is kept in its slot with what it saw, not the confirming representation', () => {
    const missing = { ...allPassing, ownership: failing('txt_record_not_found', 'No TXT record.') };
    const step = readyRuns([missing])[0] as Step;
    expect(step.record.run).toEqual({
      slot: 5, startedAt: at(0), durationMs: 1000, trigger: 'schedule', statusBefore: 'ready', statusAfter: 'ready',
      checks: [
        { type: 'ownership', status: 'failing', errorCode: 'txt_record_not_found', message: 'No TXT record.' },
        { type: 'routing', status: 'passing', errorCode: null, message: null },
        { type: 'certificate', status: 'passing', errorCode: null, message: null },
        { type: 'origin', status: 'passing', errorCode: null, message: null },
      ],
    });
    expect(recordStep(input({ checkCount: 23 })).record.run.slot).toBe(3);
  });

  test('a failed renewal of a valid certificate stays passing and says why and when it is tried again', () => {
    const step = recordStep(input({
      domain: ready, before: passingRows, observed: { certificate: passing }, counted: false, renewalFailed: { reason: 'The CA said no.', validUntil: at(86_400_000) },
    }));
    expect(step.record.status).toBe('ready');
    expect(step.record.checks.find((c) => c.type === 'certificate')).toMatchObject({
      status: 'passing', errorCode: null,
      message: `The renewal failed at ${at(1000).toISOString()} (The CA said no); the certificate stays valid until ${at(86_400_000).toISOString()} and the renewal is tried again at ${at(601_000).toISOString()}.`,
    });
  });

  test('a step with a time to be checked by: the earlier of it and the schedule', () => {
    const waiting: CheckOutcome<'certificate'> = { status: 'pending', errorCode: null, message: 'The certificate waits for ACME order budget: …' };
    const step = (checkBy: Date) => recordStep(input({ observed: { certificate: waiting }, counted: false, checkBy })).record.nextCheckAt;
    expect(step(at(30_000))).toEqual(at(30_000));
    expect(step(at(3_600_000))).toEqual(at(1000 + 60_000));
  });

  test('nothing changed: no messages and updated_at kept; the pending schedule follows the number of runs', () => {
    const before = pendingRows.map((row) => (row.type === 'certificate' ? row : { ...row, status: 'failing' as const, errorCode: 'x', message: 'nope', observedAt: at(0) }));
    const step = recordStep(input({ before, checkCount: 1, observed: { ownership: failing('x'), routing: failing('x'), origin: failing('x') } }));
    expect(step.record).toMatchObject({ status: 'pending_dns', updatedAt: T0, messages: [], nextCheckAt: at(1000 + 120_000) });
  });
});
