import { keepStarting } from './keep-starting';

function recordingLogger() {
  const warnings: Array<{ message: string; meta: unknown }> = [];
  const logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (message: string, meta?: unknown) => void warnings.push({ message, meta }) };
  return { logger, warnings };
}

describe('keepStarting', () => {
  it('tries again, with the pauses doubling up to the ceiling, until the attempt succeeds', async () => {
    const { logger, warnings } = recordingLogger();
    const pauses: number[] = [];
    let tries = 0;
    const result = await keepStarting('the database', async () => {
      tries += 1;
      if (tries < 6) throw new Error(`connect ECONNREFUSED (${tries})`);
      return 'store';
    }, { logger, delays: { initialMs: 500, maxMs: 5_000 }, wait: async (ms) => void pauses.push(ms) });
    expect(result).toBe('store');
    expect(pauses).toEqual([500, 1_000, 2_000, 4_000, 5_000]);
    expect(warnings[0]).toEqual({ message: 'waiting for the database', meta: { error: 'connect ECONNREFUSED (1)', attempt: 1, retry_in_ms: 500 } });
    expect(warnings).toHaveLength(5);
  });

  it('does not pause when the first attempt succeeds', async () => {
    const { logger, warnings } = recordingLogger();
    const wait = jest.fn(async () => undefined);
    await expect(keepStarting('the database', async () => 1, { logger, wait })).resolves.toBe(1);
    expect(wait).not.toHaveBeenCalled();
    expect(warnings).toEqual([]);
  });
});
