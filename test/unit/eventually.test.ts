import { eventually, EventuallyTimeoutError } from '../support/eventually';

describe('eventually', () => {
  it('returns the first truthy value the probe gives', async () => {
    let calls = 0;
    const found = await eventually('the third call', () => (++calls === 3 ? { calls } : null), { intervalMs: 1 });
    expect(found).toEqual({ calls: 3 });
  });

  it('awaits asynchronous probes', async () => {
    let calls = 0;
    await expect(eventually('two calls', async () => ++calls >= 2, { intervalMs: 1 })).resolves.toBe(true);
  });

  it('fails after the timeout naming what it waited for, with the explanation', async () => {
    const failure = await eventually('the moon', () => false, { timeoutMs: 30, intervalMs: 5, explain: async () => 'still dark' }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(EventuallyTimeoutError);
    expect((failure as Error).message).toBe('timed out after 30 ms waiting for the moon\nstill dark');
  });

  it('probes once even with no time left', async () => {
    let calls = 0;
    await expect(eventually('anything', () => ++calls > 1, { timeoutMs: 0, intervalMs: 1 })).rejects.toThrow('waiting for anything');
    expect(calls).toBe(1);
  });

  it('fails at once when the probe throws', async () => {
    let calls = 0;
    const probe = () => {
      calls += 1;
      throw new Error('exited');
    };
    await expect(eventually('a crash', probe, { timeoutMs: 1_000 })).rejects.toThrow('exited');
    expect(calls).toBe(1);
  });
});
