// The edge's plain-HTTP answers to ACME HTTP-01 validation: GET
// /.well-known/acme-challenge/<token> gives the key authorization the checker
// stored for it. Tokens are looked up in batches: a token not yet known joins
// the next batch read, and batch reads start at most every 200 ms, so a flood
// of random tokens costs at most 5 reads a second; a real token (written by
// the checker before it asks for validation) is found by the first read that
// starts after its request arrived. A token found absent is remembered for at
// most 2 s (DECISIONS §5).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataStore } from '@cds/data';
import { NegativeCache } from './negative-cache';

const CHALLENGE_PATH = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/;

/** Reads start at most this often. */
const BATCH_INTERVAL_MS = 200;
/** Tokens per read (below SQLite's parameter limit). */
const BATCH_MAX = 500;
/** Tokens waiting for a read; past this a request is answered 503 at once. */
const WAITING_MAX = 10_000;

interface Waiter {
  resolve: (keyAuthorization: string | null) => void;
  reject: (err: unknown) => void;
}

export interface ChallengeLookupOptions {
  /** Each database read. */
  onRead?: () => void;
  now?: () => number;
}

/** Batched token lookups of one store. */
export class ChallengeLookup {
  private readonly absent: NegativeCache;
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private reading = false;
  private lastReadAt = -Infinity;

  constructor(
    private readonly store: DataStore,
    private readonly opts: ChallengeLookupOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.absent = new NegativeCache({ max: 100_000, now: this.now });
  }

  /** The key authorization, or null when the token is unknown. */
  find(token: string): Promise<string | null> {
    if (this.absent.has(token)) return Promise.resolve(null);
    if (this.waiting.size >= WAITING_MAX && !this.waiting.has(token)) return Promise.reject(new Error('too many ACME tokens waiting for a lookup'));
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(token);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(token, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer || this.reading || this.waiting.size === 0) return;
    const wait = Math.max(0, this.lastReadAt + BATCH_INTERVAL_MS - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.read();
    }, wait);
    this.timer.unref();
  }

  private async read(): Promise<void> {
    this.reading = true;
    const batch = [...this.waiting.keys()].slice(0, BATCH_MAX);
    const waiters = batch.map((token) => {
      const list = this.waiting.get(token)!;
      this.waiting.delete(token);
      return list;
    });
    const started = this.now();
    this.lastReadAt = started;
    try {
      this.opts.onRead?.();
      const found = await this.store.run((r) => r.edgeReads.challenges(batch));
      batch.forEach((token, i) => {
        const keyAuthorization = found.get(token) ?? null;
        if (keyAuthorization === null) this.absent.remember(token, started);
        for (const waiter of waiters[i]!) waiter.resolve(keyAuthorization);
      });
    } catch (err) {
      for (const list of waiters) for (const waiter of list) waiter.reject(err);
    } finally {
      this.reading = false;
      this.schedule();
    }
  }
}

/** One lookup per store, so every caller of answerChallenge() shares its batches. */
const lookups = new WeakMap<DataStore, ChallengeLookup>();

/** The store's lookup, made with `opts` the first time. */
export function challengeLookup(store: DataStore, opts?: ChallengeLookupOptions): ChallengeLookup {
  let lookup = lookups.get(store);
  if (!lookup) lookups.set(store, (lookup = new ChallengeLookup(store, opts)));
  return lookup;
}

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
  const keyAuthorization = await challengeLookup(store).find(token);
  return keyAuthorization !== null ? { status: 200, body: keyAuthorization } : { status: 404, body: 'Unknown ACME challenge.\n' };
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
