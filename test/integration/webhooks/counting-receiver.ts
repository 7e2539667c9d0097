// An HTTPS webhook receiver on loopback that keeps, for every request, when it
// arrived and when its answer ended, so a test can tell how many were in
// flight at once. How it answers a path can change while a test runs.
import https from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestCa } from '../../support/webhook-receiver';

export interface CountedRequest {
  path: string;
  eventId: string;
  /** When the whole request had arrived (ms since the epoch). */
  started: number;
  /** When the answer ended or the connection closed; null while open. */
  ended: number | null;
  /** The status answered; null while none was. */
  status: number | null;
}

/** How a path is answered: a status after a delay, the statuses of `cycle` in turn (request by request), or never. */
export type CountingAnswer = { status: number; delayMs?: number } | { cycle: number[]; delayMs?: number } | { hang: true };

export interface CountingReceiver {
  /** `https://127.0.0.1:<port><path>`. */
  url(path: string): string;
  requests: CountedRequest[];
  /** Requests to `path`, in arrival order. */
  to(path: string): CountedRequest[];
  /** How requests to `path` are answered from now on (default: 200 at once). */
  answer(path: string, how: CountingAnswer): void;
  close(): Promise<void>;
}

/** The most requests of the list that were in flight at one moment (one that is still open counts to the end). */
export function mostAtOnce(requests: readonly CountedRequest[]): number {
  // An answer that ends at the instant another arrives does not overlap it: ends sort first.
  const moments = requests.flatMap((r) => [
    { at: r.started, change: 1 },
    { at: r.ended ?? Number.POSITIVE_INFINITY, change: -1 },
  ]);
  moments.sort((a, b) => a.at - b.at || a.change - b.change);
  let current = 0;
  let most = 0;
  for (const m of moments) {
    current += m.change;
    most = Math.max(most, current);
  }
  return most;
}

export async function startCountingReceiver(ca: TestCa): Promise<CountingReceiver> {
  const requests: CountedRequest[] = [];
  const answers = new Map<string, CountingAnswer>();
  const live = new Set<ServerResponse>();

  const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const counted: CountedRequest = { path, eventId: String(req.headers['x-custom-domain-event-id'] ?? ''), started: Date.now(), ended: null, status: null };
      requests.push(counted);
      live.add(res);
      res.on('close', () => {
        live.delete(res);
        counted.ended ??= Date.now();
      });
      const how = answers.get(path) ?? { status: 200 };
      if ('hang' in how) return;
      const status = 'cycle' in how ? (how.cycle[(to(path).length - 1) % how.cycle.length] as number) : how.status;
      const reply = () => {
        counted.status = status;
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end('ok', () => {
          counted.ended ??= Date.now();
        });
      };
      if (how.delayMs) setTimeout(reply, how.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const to = (path: string) => requests.filter((r) => r.path === path);
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    requests,
    to,
    answer: (path, how) => void answers.set(path, how),
    async close() {
      for (const res of live) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
