import { prettyLine } from './pretty-line';

// A local time, so the expected clock holds in any time zone.
const AT = new Date(2026, 10, 26, 9, 5, 7, 42).toISOString();
const plain = { colour: false };

describe('prettyLine', () => {
  it('writes time, level, service and message, then the fields as key=value', () => {
    const line = prettyLine({ timestamp: AT, level: 'info', service: 'checker', message: 'domain ready', domain_id: 'd1', checks: 4, served: true }, plain);
    expect(line).toBe('09:05:07.042 info  checker domain ready domain_id=d1 checks=4 served=true');
  });

  it('quotes values with spaces, quotes, = or control characters, and only those', () => {
    const line = prettyLine(
      { timestamp: AT, level: 'warn', service: 'api', message: 'm', reason: 'DNS timed out', path: '/v1/domains', empty: '', pair: 'a=b', quote: 'say "hi"', escape: 'a\u001b[31mb' },
      plain,
    );
    expect(line).toBe(
      '09:05:07.042 warn  api m reason="DNS timed out" path=/v1/domains empty="" pair="a=b" quote="say \\"hi\\"" escape="a\\u001b[31mb"',
    );
  });

  it('writes objects as compact JSON, dates as ISO text, and leaves undefined fields out', () => {
    const line = prettyLine(
      { timestamp: AT, level: 'info', service: 'all-in-one', message: 'started', applied: ['Init1', 'Checks2'], at: new Date('2026-11-26T08:00:00.000Z'), none: null, skipped: undefined },
      plain,
    );
    expect(line).toBe('09:05:07.042 info  all-in-one started applied=["Init1","Checks2"] at=2026-11-26T08:00:00.000Z none=null');
  });

  it('keeps a message on its line: newlines and escape codes are shown escaped', () => {
    expect(prettyLine({ timestamp: AT, level: 'error', service: 'api', message: 'first\nsecond \u001b[2J' }, plain)).toBe(
      '09:05:07.042 error api first\\nsecond \\u001b[2J',
    );
  });

  it("puts an Error's stack frames on indented lines below", () => {
    const stack = 'Error: upstream refused\n    at probe (origin.ts:10:5)\n    at run (checker.ts:3:1)';
    expect(prettyLine({ timestamp: AT, level: 'error', service: 'checker', message: 'upstream refused', stack }, plain)).toBe(
      '09:05:07.042 error checker upstream refused\n    at probe (origin.ts:10:5)\n    at run (checker.ts:3:1)',
    );
  });

  it('colours the level by severity and dims the time and field names', () => {
    const line = prettyLine({ timestamp: AT, level: 'error', service: 'edge-proxy', message: 'origin failed', status: 502 }, { colour: true });
    expect(line).toBe('\x1b[2m09:05:07.042\x1b[0m \x1b[31merror\x1b[0m edge-proxy origin failed \x1b[2mstatus=\x1b[0m502');
    expect(prettyLine({ timestamp: AT, level: 'warn', service: 'api', message: 'm' }, { colour: true })).toContain('\x1b[33mwarn \x1b[0m');
    expect(prettyLine({ timestamp: AT, level: 'info', service: 'api', message: 'm' }, { colour: true })).toContain('\x1b[32minfo \x1b[0m');
  });

  it('has no escape codes without colour', () => {
    for (const level of ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']) {
      expect(prettyLine({ timestamp: AT, level, service: 'api', message: 'm', field: 1 }, plain)).not.toContain('\x1b');
    }
  });

  it('survives an entry without time or service', () => {
    expect(prettyLine({ level: 'info', message: 'bare' }, plain)).toBe('--:--:--.--- info  - bare');
  });
});
