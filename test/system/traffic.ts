// HTTPS traffic through both edges to every ready domain, for the whole run:
// requests at a steady rate, each to the next ready domain and the next edge
// in turn, over kept-alive connections, trusting only Pebble's root. A
// request is ok when the origin answered 200 after verifying the assertion.
//
// What a load balancer and a browser do is done here too, and counted apart:
// a request whose connection is refused (the edge process is gone) or that
// fails on a reused kept-alive connection before any answer byte is sent
// once more, to the other edge. Everything else that fails is a failure.
import https from 'node:https';
import type { RequestSample } from './invariants';

const REQUEST_TIMEOUT_MS = 10_000;

export interface TrafficSample extends RequestSample {
  hostname: string;
  edge: number;
  /** Why it was sent a second time, to the other edge. */
  retried?: string;
}

export interface TrafficOptions {
  edgePorts: readonly number[];
  /** Pebble's root (PEM): the only trust anchor. */
  ca: string;
  ratePerSecond: number;
  concurrency: number;
  clock: () => number;
}

interface Attempt {
  status: number;
  body: string;
}

class AttemptError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}

export class Traffic {
  readonly samples: TrafficSample[] = [];
  /** Hostnames served now, and since when (ms of the run) they may be asked. */
  private readonly targets = new Map<string, number>();
  private order: string[] = [];
  private cursor = 0;
  private edgeCursor = 0;
  private inFlight = 0;
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly agents: https.Agent[];
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly opts: TrafficOptions) {
    this.agents = opts.edgePorts.map(() => new https.Agent({ keepAlive: true, maxSockets: 2, maxFreeSockets: 1024, scheduling: 'lifo' }));
  }

  /** Asks `hostname` from `fromMs` on (the contract's 5 seconds after it turned ready). */
  add(hostname: string, fromMs: number): void {
    if (!this.targets.has(hostname)) this.targets.set(hostname, fromMs);
  }

  /** Stops asking `hostname` (before its DELETE is sent). */
  remove(hostname: string): void {
    this.targets.delete(hostname);
  }

  has(hostname: string): boolean {
    return this.targets.has(hostname);
  }

  size(): number {
    return this.targets.size;
  }

  start(): void {
    const every = 1000 / this.opts.ratePerSecond;
    this.timer = setInterval(() => this.tick(), every);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.running]);
    for (const agent of this.agents) agent.destroy();
  }

  private tick(): void {
    if (this.inFlight >= this.opts.concurrency) return;
    const now = this.opts.clock();
    if (this.cursor >= this.order.length) {
      this.order = [...this.targets].filter(([, from]) => from <= now).map(([h]) => h);
      this.cursor = 0;
      if (this.order.length === 0) return;
    }
    const hostname = this.order[this.cursor++] as string;
    if (!this.targets.has(hostname)) return;
    const edge = this.edgeCursor++ % this.opts.edgePorts.length;
    const job = this.send(hostname, edge, now);
    this.running.add(job);
    void job.finally(() => this.running.delete(job));
  }

  private async send(hostname: string, edge: number, atMs: number): Promise<void> {
    this.inFlight += 1;
    const path = `/t/${++this.seq}`;
    const sample: TrafficSample = { atMs, ok: false, hostname, edge };
    try {
      let answer: Attempt;
      try {
        answer = await this.attempt(hostname, edge, path);
      } catch (err) {
        if (!(err instanceof AttemptError) || !err.retryable) throw err;
        sample.retried = err.message;
        sample.edge = (edge + 1) % this.opts.edgePorts.length;
        answer = await this.attempt(hostname, sample.edge, path);
      }
      if (answer.status !== 200) sample.problem = `status ${answer.status}: ${answer.body.slice(0, 80).trim()}`;
      else if (answer.body !== `ok ${hostname} ${path}`) sample.problem = `200 not from the origin: ${answer.body.slice(0, 80)}`;
      else sample.ok = true;
    } catch (err) {
      sample.problem = err instanceof Error ? err.message : String(err);
    } finally {
      this.inFlight -= 1;
      this.samples.push(sample);
    }
  }

  private attempt(hostname: string, edge: number, path: string): Promise<Attempt> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = https.request({
        host: '127.0.0.1', port: this.opts.edgePorts[edge], path, servername: hostname, ca: this.opts.ca,
        headers: { host: hostname }, agent: this.agents[edge], timeout: REQUEST_TIMEOUT_MS,
      }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => reject(new AttemptError(`answer cut: ${err.message}`, false)));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        const refused = err.code === 'ECONNREFUSED';
        const staleConnection = req.reusedSocket && !answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE' || /socket hang up/.test(err.message));
        const why = refused ? 'connection refused' : staleConnection ? `kept-alive connection closed (${err.code ?? err.message})` : `${err.code ?? ''} ${err.message}`.trim();
        reject(new AttemptError(why, !answered && (refused || staleConnection)));
      });
      req.end();
    });
  }
}
