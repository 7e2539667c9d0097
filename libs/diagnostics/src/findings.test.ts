import {
  certificatesFinding,
  clockSkewFinding,
  migrationsFinding,
  outboxFinding,
  queueFinding,
  webhooksFinding,
} from './findings';

const now = new Date('2026-01-10T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('findings', () => {
  it('migrations: fail while any is pending, naming them', () => {
    expect(migrationsFinding([]).status).toBe('ok');
    expect(migrationsFinding(['AddOrigins1760000000001'])).toEqual({ status: 'fail', message: expect.stringContaining('AddOrigins1760000000001') });
    expect(migrationsFinding([], ['ix_domains_application_live'])).toEqual({ status: 'warn', message: expect.stringContaining('ix_domains_application_live') });
    expect(migrationsFinding(['AddOrigins1760000000001'], ['ix_domains_application_live']).status).toBe('fail');
  });

  it('outbox: warn past 60 s, fail past 10 min', () => {
    expect(outboxFinding(null, now).status).toBe('ok');
    expect(outboxFinding(ago(60_000), now).status).toBe('ok');
    expect(outboxFinding(ago(60_001), now).status).toBe('warn');
    expect(outboxFinding(ago(600_000), now).status).toBe('warn');
    expect(outboxFinding(ago(600_001), now).status).toBe('fail');
  });

  it('queues: warn without consumers or with more than 1000 waiting', () => {
    expect(queueFinding('checker', { consumerCount: 1, messageCount: 1000 }).status).toBe('ok');
    expect(queueFinding('checker', { consumerCount: 0, messageCount: 0 })).toEqual({ status: 'warn', message: expect.stringContaining('no checker service') });
    expect(queueFinding('checker', { consumerCount: 2, messageCount: 1001 }).status).toBe('warn');
  });

  it('certificates: warn when the store is absent or some expire within 14 days', () => {
    expect(certificatesFinding(null)).toEqual({ status: 'warn', message: 'certificate store not present in this version' });
    expect(certificatesFinding(0).status).toBe('ok');
    expect(certificatesFinding(3)).toEqual({ status: 'warn', message: expect.stringContaining('3 certificate(s)') });
  });

  it('webhooks: ok when absent; warn past 10 min overdue, fail past an hour', () => {
    expect(webhooksFinding(null, now)).toEqual({ status: 'ok', message: 'webhooks not present in this version' });
    expect(webhooksFinding({ pending: 0, oldestDueAt: null }, now).status).toBe('ok');
    expect(webhooksFinding({ pending: 4, oldestDueAt: ago(5 * 60_000) }, now).status).toBe('ok');
    expect(webhooksFinding({ pending: 4, oldestDueAt: ago(11 * 60_000) }, now).status).toBe('warn');
    expect(webhooksFinding({ pending: 4, oldestDueAt: ago(61 * 60_000) }, now).status).toBe('fail');
  });

  it('clock skew: warn past 2 s, fail past 30 s, either direction', () => {
    expect(clockSkewFinding(2000).status).toBe('ok');
    expect(clockSkewFinding(-2001)).toEqual({ status: 'warn', message: expect.stringContaining('behind') });
    expect(clockSkewFinding(30_000).status).toBe('warn');
    expect(clockSkewFinding(30_001)).toEqual({ status: 'fail', message: expect.stringContaining('ahead of') });
  });
});
