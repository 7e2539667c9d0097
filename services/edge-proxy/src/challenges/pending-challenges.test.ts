import type { DataStore } from '@cds/data';
import { ChallengesUnavailable, PendingChallenges, REFRESH_INTERVAL_MS, SET_FRESH_MS } from './pending-challenges';

/** A store whose challenge table is `rows`; each read is counted, and may be held until a test lets it go. */
function fakeStore(rows: Map<string, string>) {
  const state = { reads: 0, fail: false, hold: null as Promise<void> | null };
  const store = {
    run: (fn: (r: unknown) => Promise<unknown>) => fn({
      acmeChallenges: {
        keyAuthorizations: async () => {
          state.reads += 1;
          const snapshot = new Map(rows);
          if (state.hold) await state.hold;
          if (state.fail) throw new Error('database away');
          return snapshot;
        },
      },
    }),
  } as unknown as DataStore;
  return { store, state };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const token = (i: number) => `t${String(i).padStart(42, '0')}`;

describe('PendingChallenges', () => {
  it('answers any number of waiting tokens with one read, and reads at most every 200 ms however many tokens arrive', async () => {
    const rows = new Map([['real', 'real.thumb']]);
    const { store, state } = fakeStore(rows);
    const challenges = new PendingChallenges(store);
    const first = await Promise.all([...Array.from({ length: 1_000 }, (_, i) => challenges.find(token(i))), challenges.find('real')]);
    expect(first.filter((k) => k !== null)).toEqual(['real.thumb']);
    expect(state.reads).toBe(1);

    // A flood for one second: a new random token every millisecond or so.
    const started = Date.now();
    const answers: Array<Promise<string | null>> = [];
    for (let i = 0; Date.now() - started < 1_000; i += 1) {
      for (let j = 0; j < 20; j += 1) answers.push(challenges.find(token(10_000 + i * 20 + j)));
      await sleep(5);
    }
    expect((await Promise.all(answers)).every((k) => k === null)).toBe(true);
    expect(answers.length).toBeGreaterThan(1_000);
    expect(state.reads - 1).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / REFRESH_INTERVAL_MS) + 1);
  });

  it('finds a challenge written after a refresh started by the next refresh, for a request that arrived after the write', async () => {
    const rows = new Map<string, string>();
    const { store, state } = fakeStore(rows);
    const challenges = new PendingChallenges(store);
    let release!: () => void;
    state.hold = new Promise((resolve) => (release = resolve));
    const random = challenges.find(token(1));
    await sleep(10);
    expect(state.reads).toBe(1);
    // The checker writes the challenge while that read is running, then the CA asks for it.
    rows.set('real', 'real.thumb');
    const real = challenges.find('real');
    state.hold = null;
    release();
    expect(await random).toBeNull();
    const asked = Date.now();
    expect(await real).toBe('real.thumb');
    expect(Date.now() - asked).toBeLessThan(REFRESH_INTERVAL_MS + 100);
    expect(state.reads).toBe(2);
  });

  it('answers a token of a fresh set without a read; a deleted challenge leaves at the next refresh, and a set older than 2 s is read again', async () => {
    let now = 1_000_000;
    const rows = new Map([['a', 'a.k'], ['b', 'b.k']]);
    const { store, state } = fakeStore(rows);
    const challenges = new PendingChallenges(store, { now: () => now });
    expect(await challenges.find('a')).toBe('a.k');
    expect(state.reads).toBe(1);
    rows.delete('a');
    expect(await challenges.find('a')).toBe('a.k');
    expect(await challenges.find('b')).toBe('b.k');
    expect(state.reads).toBe(1);
    // A token the set lacks makes the next refresh, which drops the deleted one.
    now += REFRESH_INTERVAL_MS;
    expect(await challenges.find('c')).toBeNull();
    expect(state.reads).toBe(2);
    expect(await challenges.find('a')).toBeNull();
    expect(state.reads).toBe(3);
    // Once the set is 2 s old, even a token it holds waits for a read.
    now += SET_FRESH_MS;
    rows.delete('b');
    expect(await challenges.find('b')).toBeNull();
    expect(state.reads).toBe(4);
  });

  it('when a read fails, answers the tokens of the last set and says unavailable for the others; the next read serves again', async () => {
    let now = 1_000_000;
    const rows = new Map([['a', 'a.k']]);
    const { store, state } = fakeStore(rows);
    const challenges = new PendingChallenges(store, { now: () => now });
    expect(await challenges.find('a')).toBe('a.k');
    now += SET_FRESH_MS;
    state.fail = true;
    const [a, other] = await Promise.allSettled([challenges.find('a'), challenges.find('other')]);
    expect(a).toEqual({ status: 'fulfilled', value: 'a.k' });
    expect(other.status).toBe('rejected');
    expect((other as PromiseRejectedResult).reason).toBeInstanceOf(ChallengesUnavailable);
    expect(((other as PromiseRejectedResult).reason as ChallengesUnavailable).reason).toBe('read_failed');
    state.fail = false;
    rows.set('other', 'other.k');
    expect(await challenges.find('other')).toBe('other.k');
  });

  it('says unavailable at once, without a read, past the cap of waiting requests', async () => {
    const { store, state } = fakeStore(new Map());
    const challenges = new PendingChallenges(store, { waitingMax: 3 });
    const waiting = [1, 2, 3].map((i) => challenges.find(token(i)));
    expect(challenges.waitingCount).toBe(3);
    await expect(challenges.find(token(4))).rejects.toMatchObject({ reason: 'busy' });
    expect(await Promise.all(waiting)).toEqual([null, null, null]);
    expect(state.reads).toBe(1);
    expect(await challenges.find(token(4))).toBeNull();
  });
});
