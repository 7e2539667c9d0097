import type { DataStore } from '@cds/data';
import { answerChallenge } from './challenge-responder';
import { PendingChallenges } from './pending-challenges';

const REAL = 'LoqXcYV8q5ONbJQxbmR7SCTNo3tiAXDfowyjxAjEuX0';

function storeWith(rows: Record<string, string>, fail = false) {
  const state = { reads: 0 };
  const store = {
    run: (fn: (r: unknown) => Promise<unknown>) => fn({
      acmeChallenges: {
        keyAuthorizations: async () => {
          state.reads += 1;
          if (fail) throw new Error('database away');
          return new Map(Object.entries(rows));
        },
      },
    }),
  } as unknown as DataStore;
  return { challenges: new PendingChallenges(store), state };
}

describe('answerChallenge', () => {
  it('answers a well-formed token from the challenges: its key authorization, or 404', async () => {
    const { challenges, state } = storeWith({ [REAL]: `${REAL}.thumb` });
    expect(await answerChallenge(challenges, 'GET', `/.well-known/acme-challenge/${REAL}`)).toMatchObject({ status: 200, body: `${REAL}.thumb` });
    expect(await answerChallenge(challenges, 'HEAD', `/.well-known/acme-challenge/${REAL}?x=1`)).toMatchObject({ status: 200 });
    expect(await answerChallenge(challenges, 'GET', `/.well-known/acme-challenge/${'A'.repeat(43)}`)).toMatchObject({ status: 404 });
    expect(state.reads).toBe(2);
  });

  it('answers 404 at once, without a read, to anything but a GET or HEAD of 43 base64url characters', async () => {
    const { challenges, state } = storeWith({ [REAL]: `${REAL}.thumb` });
    const malformed = [
      REAL.slice(1), `${REAL}A`, `${REAL.slice(1)}=`, `${REAL.slice(1)}.`, `${REAL.slice(2)}%2F`, '', 'short', `${REAL}/x`, `${REAL.slice(1)}+`,
    ];
    for (const token of malformed) {
      expect(await answerChallenge(challenges, 'GET', `/.well-known/acme-challenge/${token}`)).toMatchObject({ status: 404, body: 'Unknown ACME challenge.\n' });
    }
    expect(await answerChallenge(challenges, 'POST', `/.well-known/acme-challenge/${REAL}`)).toMatchObject({ status: 404 });
    expect(challenges.waitingCount).toBe(0);
    expect(state.reads).toBe(0);
  });

  it('answers 503 with Retry-After when the challenges cannot be read', async () => {
    const { challenges } = storeWith({}, true);
    expect(await answerChallenge(challenges, 'GET', `/.well-known/acme-challenge/${REAL}`)).toEqual({
      status: 503, body: 'ACME challenges are unavailable for a moment.\n', headers: { 'content-type': 'text/plain', 'retry-after': 1 },
    });
  });
});
