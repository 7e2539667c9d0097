import { CERTIFICATE_ISSUING_MESSAGE, ROUTING_KEYS, type CheckOutcome } from '@cds/core';
import type { CertificateRow, CheckRow, DomainRow } from '@cds/data';
import { recordStep, type StepInput } from './run-step';

const T0 = new Date('2026-06-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const passing = { status: 'passing', errorCode: null, message: null } as const;
const failing = (errorCode: string, message = 'nope') => ({ status: 'failing' as const, errorCode: errorCode as never, message });
const issuing: CheckOutcome<'certificate'> = { status: 'pending', errorCode: null, message: CERTIFICATE_ISSUING_MESSAGE };

const domain: DomainRow = {
  id: '0b7c8a52-3a8e-4a43-9d7e-6f2f1f0a9a01', applicationId: 'a4b0f5b2-8d51-4d4c-9d62-0c4f5a6b7c8d', hostname: 'shop.example.com', reference: 'ws_1',
  status: 'pending_dns', challengeToken: 'ab'.repeat(32), metadata: { plan: 'pro' }, createdAt: T0, updatedAt: T0, deletedAt: null, nextCheckAt: T0,
};
const pendingRows: CheckRow[] = (['ownership', 'routing', 'certificate', 'origin'] as const).map((type) => ({
  domainId: domain.id, type, status: 'pending', errorCode: null, message: null, observedAt: null, nextCheckAt: null,
}));
const certificate: CertificateRow = {
  hostname: domain.hostname, domainId: domain.id, issuer: 'internal', pemChain: 'pem', keySealed: 'sealed', notBefore: T0, notAfter: at(90 * 86_400_000), createdAt: at(2000),
};

function input(overrides: Partial<StepInput>): StepInput {
  return {
    domain, checkCount: 0, before: pendingRows, observed: {}, startedAt: at(0), now: at(1000), counted: true, continuesUntil: null, issued: null,
    schedule: { pending: [60_000, 120_000], live: 600_000 }, edgeTarget: 'edge.example.net', ...overrides,
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

  test('a ready domain with a failing check needs attention; failing rows say when they are checked next', () => {
    const ready = { ...domain, status: 'ready' as const };
    const before = pendingRows.map((row) => ({ ...row, status: 'passing' as const, observedAt: at(0) }));
    const step = recordStep(input({ domain: ready, before, checkCount: 5, observed: { ownership: failing('txt_record_not_found'), routing: passing, certificate: passing, origin: passing } }));
    expect(step.record.status).toBe('attention_required');
    expect(step.record.nextCheckAt).toEqual(at(1000 + 600_000));
    expect(step.record.checks.find((c) => c.type === 'ownership')).toMatchObject({ status: 'failing', errorCode: 'txt_record_not_found', nextCheckAt: at(601_000) });
    expect(step.record.checks.find((c) => c.type === 'routing')?.nextCheckAt).toBeNull();
    expect(step.record.messages.map((m) => (m.payload as { type?: string; change?: string }).type ?? (m.payload as { change: string }).change)).toEqual(['domain.attention_required', 'status']);
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
