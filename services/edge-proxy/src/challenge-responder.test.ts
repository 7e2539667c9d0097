import type { DataStore } from '@cds/data';
import { ChallengeLookup } from './challenge-responder';

function storeWith(tokens: Record<string, string>) {
  const reads: string[][] = [];
  const store = {
    run: (fn: (r: unknown) => Promise<unknown>) => fn({
      edgeReads: {
        challenges: async (asked: string[]) => {
          reads.push(asked);
          return new Map(asked.filter((t) => t in tokens).map((t) => [t, tokens[t]!]));
        },
      },
    }),
  } as unknown as DataStore;
  return { store, reads };
}

describe('ChallengeLookup', () => {
  it('reads tokens in batches, at most one read per 200 ms, and remembers unknown ones', async () => {
    const { store, reads } = storeWith({ real: 'real.thumb' });
    const lookup = new ChallengeLookup(store);
    const first = lookup.find('real');
    expect(await first).toBe('real.thumb');
    const started = Date.now();
    const answers = await Promise.all(['a', 'b', 'c', 'a', 'real'].map((t) => lookup.find(t)));
    expect(answers).toEqual([null, null, null, null, 'real.thumb']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(reads).toEqual([['real'], ['a', 'b', 'c', 'real']]);
    // Unknown tokens are remembered: no read for them within 2 s.
    expect(await Promise.all(['a', 'b'].map((t) => lookup.find(t)))).toEqual([null, null]);
    expect(reads).toHaveLength(2);
  });

  it('fails the waiting lookups when the read fails, and reads again for the next ones', async () => {
    let fail = true;
    const store = {
      run: async () => {
        if (fail) throw new Error('database away');
        return new Map([['t', 't.thumb']]);
      },
    } as unknown as DataStore;
    const lookup = new ChallengeLookup(store);
    await expect(lookup.find('t')).rejects.toThrow('database away');
    fail = false;
    expect(await lookup.find('t')).toBe('t.thumb');
  });
});
