import { keepTrying } from './keep-trying';

function clock() {
  let t = 0;
  return { now: () => t, wait: async (ms: number) => void (t += ms) };
}

describe('keepTrying', () => {
  it('returns the first success, after pauses that double up to the maximum', async () => {
    const c = clock();
    const pauses: number[] = [];
    let calls = 0;
    const value = await keepTrying(async () => {
      calls += 1;
      if (calls < 6) throw new Error(`down ${calls}`);
      return 'written';
    }, { forMs: 60_000, initialDelayMs: 250, maxDelayMs: 2_000, onRetry: (_err, _attempt, ms) => pauses.push(ms), ...c });
    expect(value).toBe('written');
    expect(pauses).toEqual([250, 500, 1000, 2000, 2000]);
  });

  it('gives up with the last error once its time is spent', async () => {
    const c = clock();
    let calls = 0;
    await expect(keepTrying(async () => {
      calls += 1;
      throw new Error(`down ${calls}`);
    }, { forMs: 1_000, initialDelayMs: 400, ...c })).rejects.toThrow('down 3');
    // 400 + 600 (what was left): three tries.
    expect(calls).toBe(3);
  });

  it('throws at once a failure retryIf does not retry, and retries those it does', async () => {
    let calls = 0;
    await expect(keepTrying(async () => {
      calls += 1;
      throw new Error(calls === 1 ? 'connection refused' : 'constraint violated');
    }, { forMs: 60_000, retryIf: (err) => (err as Error).message === 'connection refused', ...clock() })).rejects.toThrow('constraint violated');
    expect(calls).toBe(2);
  });

  it('gives up at once when told to stop', async () => {
    await expect(keepTrying(async () => {
      throw new Error('down');
    }, { forMs: 60_000, stopped: () => true, ...clock() })).rejects.toThrow('down');
  });
});
