// The edge's plain-HTTP answers to ACME HTTP-01 validation: GET
// /.well-known/acme-challenge/<token> gives the key authorization the checker
// stored for it. The edge issue grows this listener (redirects, 503s).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataStore } from '@cds/data';

const CHALLENGE_PATH = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/;

export interface ChallengeResponderDeps {
  store: DataStore;
  port: number;
  bindAddress: string;
}

export interface ChallengeResponder {
  /** The port it listens on (useful with port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/** The answer to one plain-HTTP request: the key authorization, or 404. */
export async function answerChallenge(store: DataStore, method: string | undefined, url: string | undefined): Promise<{ status: number; body: string }> {
  const token = (method === 'GET' || method === 'HEAD') ? CHALLENGE_PATH.exec((url ?? '').split('?')[0] ?? '')?.[1] : undefined;
  if (!token) return { status: 404, body: 'Not found.\n' };
  const challenge = await store.run((r) => r.acmeChallenges.find(token));
  return challenge ? { status: 200, body: challenge.keyAuthorization } : { status: 404, body: 'Unknown ACME challenge.\n' };
}

export async function startChallengeResponder(deps: ChallengeResponderDeps): Promise<ChallengeResponder> {
  const server = http.createServer((req, res) => {
    answerChallenge(deps.store, req.method, req.url).then(
      ({ status, body }) => res.writeHead(status, { 'content-type': 'text/plain' }).end(body),
      () => res.writeHead(503, { 'content-type': 'text/plain' }).end('Temporarily unavailable.\n'),
    );
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
