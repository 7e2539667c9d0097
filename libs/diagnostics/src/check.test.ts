import { overallStatus, runCheck, type FindingStatus } from './check';

const results = (...statuses: FindingStatus[]) => statuses.map((status) => ({ status }));

describe('overallStatus', () => {
  it('is ok when every check is ok, and when there are none', () => {
    expect(overallStatus(results('ok', 'ok'))).toBe('ok');
    expect(overallStatus([])).toBe('ok');
  });

  it('is degraded when a check warns and none fails', () => {
    expect(overallStatus(results('ok', 'warn', 'ok'))).toBe('degraded');
  });

  it('is failing when any check fails, warnings or not', () => {
    expect(overallStatus(results('ok', 'fail'))).toBe('failing');
    expect(overallStatus(results('warn', 'fail', 'warn'))).toBe('failing');
  });
});

describe('runCheck', () => {
  it('reports the finding with the name and a duration', async () => {
    const result = await runCheck({ name: 'x', timeoutMs: 1000, run: async () => ({ status: 'warn', message: 'careful' }) });
    expect(result).toEqual({ name: 'x', status: 'warn', message: 'careful', duration_ms: expect.any(Number) });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('turns a thrown error into a failure with its message', async () => {
    const result = await runCheck({ name: 'x', timeoutMs: 1000, run: () => Promise.reject(new Error('connection refused')) });
    expect(result).toMatchObject({ status: 'fail', message: 'connection refused' });
  });

  it('fails a check that does not finish before its deadline', async () => {
    const result = await runCheck({ name: 'slow', timeoutMs: 200, run: () => new Promise(() => undefined) });
    expect(result).toMatchObject({ name: 'slow', status: 'fail', message: 'no answer within 0.2 s' });
    expect(result.duration_ms).toBeGreaterThanOrEqual(190);
  });
});
