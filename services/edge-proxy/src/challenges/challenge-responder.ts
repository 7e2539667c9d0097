// The edge's plain-HTTP answers to ACME HTTP-01 validation: GET
// /.well-known/acme-challenge/<token> gives the key authorization the checker
// stored for it, from the challenges kept in memory (pending-challenges.ts).
// A token that is not 43 base64url characters (the 256 random bits CAs send)
// gets 404 at once, without a read or a wait. When no answer can be had for a
// moment the answer is 503, which the checker does not count against the
// hostname's failed validations (libs/core acme-validation-failure.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataStore } from '@cds/data';
import { ChallengesUnavailable, PendingChallenges } from './pending-challenges';

export const CHALLENGE_PREFIX = '/.well-known/acme-challenge/';
const CHALLENGE_PATH = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]{43})$/;

export interface ChallengeAnswer {
  status: number;
  body: string;
  headers: Record<string, string | number>;
}

const TEXT = { 'content-type': 'text/plain' };
const NOT_FOUND: ChallengeAnswer = { status: 404, body: 'Unknown ACME challenge.\n', headers: TEXT };
const UNAVAILABLE: ChallengeAnswer = { status: 503, body: 'ACME challenges are unavailable for a moment.\n', headers: { ...TEXT, 'retry-after': 1 } };

/** The token of a well-formed challenge request, or null. */
export function challengeToken(method: string | undefined, url: string | undefined): string | null {
  if (method !== 'GET' && method !== 'HEAD') return null;
  return CHALLENGE_PATH.exec((url ?? '').split('?')[0] ?? '')?.[1] ?? null;
}

/** The answer to a request under CHALLENGE_PREFIX: the key authorization, 404, or 503 when none can be had now. */
export async function answerChallenge(challenges: PendingChallenges, method: string | undefined, url: string | undefined): Promise<ChallengeAnswer> {
  const token = challengeToken(method, url);
  if (token === null) return NOT_FOUND;
  try {
    const keyAuthorization = await challenges.find(token);
    return keyAuthorization === null ? NOT_FOUND : { status: 200, body: keyAuthorization, headers: TEXT };
  } catch (err) {
    if (err instanceof ChallengesUnavailable) return UNAVAILABLE;
    throw err;
  }
}

export interface ChallengeResponderDeps {
  store: DataStore;
  port: number;
  bindAddress: string;
  /** Each database read. */
  onRead?: () => void;
}

export interface ChallengeResponder {
  /** The port it listens on (useful with port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/** A listener of its own that answers HTTP-01 alone (anything else: 404). */
export async function startChallengeResponder(deps: ChallengeResponderDeps): Promise<ChallengeResponder> {
  const challenges = new PendingChallenges(deps.store, deps.onRead ? { onRead: deps.onRead } : {});
  const server = http.createServer((req, res) => {
    const answer = req.url?.startsWith(CHALLENGE_PREFIX) ? answerChallenge(challenges, req.method, req.url) : Promise.resolve(NOT_FOUND);
    void answer.catch(() => UNAVAILABLE).then(({ status, body, headers }) => res.writeHead(status, headers).end(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port, deps.bindAddress, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
