// A real HTTPS webhook receiver on loopback for tests, with a throwaway CA
// (openssl) whose PEM file is what WEBHOOK_CA_BUNDLE points at.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  dir: string;
  /** PEM of the CA: WEBHOOK_CA_BUNDLE. */
  caFile: string;
  key: string;
  cert: string;
  remove(): void;
}

/** A CA and one leaf certificate for `names` (DNS names and IP addresses). */
export function createTestCa(names: string[] = ['localhost', '127.0.0.1']): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'cds-webhook-ca-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...curve, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=cds test webhook CA');
  run('req', ...curve, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=webhook receiver');
  const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  writeFileSync(join(dir, 'leaf.ext'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  run('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '2', '-extfile', 'leaf.ext');
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'leaf.key'), 'utf8'),
    cert: readFileSync(join(dir, 'leaf.pem'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body as received. */
  body: string;
  at: number;
}

/** How the receiver answers one request. */
export type Answer =
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  /** Never answers. */
  | { hang: true }
  /** 200, then a body that never ends. */
  | { endlessBody: true };

export interface WebhookReceiver {
  port: number;
  host: string;
  /** `https://<host>:<port><path>`. */
  url(path?: string): string;
  requests: ReceivedRequest[];
  /** Requests to `path`, oldest first. */
  to(path: string): ReceivedRequest[];
  /** Answers for `path`, used in order; the last one repeats. Default: 200. */
  script(path: string, answers: Answer[]): void;
  close(): Promise<void>;
}

export async function startReceiver(ca: TestCa, host = '127.0.0.1', port = 0): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const scripts = new Map<string, Answer[]>();
  const open = new Set<ServerResponse>();

  const answer = (res: ServerResponse, a: Answer) => {
    if ('hang' in a) return;
    if ('endlessBody' in a) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
      return;
    }
    const reply = () => {
      res.writeHead(a.status, { 'content-type': 'text/plain', ...(a.headers ?? {}) });
      res.end(a.body ?? '');
    };
    if (a.delayMs) setTimeout(reply, a.delayMs);
    else reply();
  };

  const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const seen = requests.filter((r) => r.path === path).length;
      requests.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const script = scripts.get(path) ?? [{ status: 200, body: 'ok' }];
      open.add(res);
      res.on('close', () => open.delete(res));
      answer(res, script[Math.min(seen, script.length - 1)] as Answer);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    host,
    requests,
    url: (path = '/hook') => `https://${host}:${bound}${path}`,
    to: (path) => requests.filter((r) => r.path === path),
    script: (path, answers) => void scripts.set(path, answers),
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** How one slowly streamed answer ended, seen from the receiver. */
export interface SlowAnswer {
  /** Body bytes the connection took (writes whose callback reported success) before it closed or stalled. */
  bytesTaken: number;
  /** `closed`: the client closed the connection; `stalled`: a write was not taken for `stallMs`; `ended`: the whole body went out. */
  end: 'closed' | 'stalled' | 'ended';
  /** From the status line to the end. */
  ms: number;
}

export interface SlowBodyOptions {
  /** The body's announced and full size (Content-Length). */
  totalBytes: number;
  /** Written one at a time… */
  chunkBytes: number;
  /** …every `intervalMs`, the next only once the previous one was taken. */
  intervalMs: number;
  /** A write not taken for this long ends the answer as `stalled` (the client stopped reading without closing). */
  stallMs: number;
}

export interface SlowBodyReceiver {
  url(path?: string): string;
  requests: ReceivedRequest[];
  /** One per request, once its answer ended. */
  answers: SlowAnswer[];
  close(): Promise<void>;
}

/**
 * A receiver that answers every POST with 200 and a large body sent slowly,
 * and counts how much of it the client's connection took before the client
 * closed it. At this pace a reading client takes each chunk as it comes, so
 * the count is what the client read plus what sat in the socket buffers.
 */
export async function startSlowBodyReceiver(ca: TestCa, opts: SlowBodyOptions, host = '127.0.0.1'): Promise<SlowBodyReceiver> {
  const requests: ReceivedRequest[] = [];
  const answers: SlowAnswer[] = [];
  const open = new Set<ServerResponse>();
  const chunk = Buffer.alloc(opts.chunkBytes, 'y');

  const stream = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(opts.totalBytes) });
    const started = Date.now();
    let sent = 0;
    let taken = 0;
    let waitingSince: number | null = null;
    let finished = false;
    const finish = (end: SlowAnswer['end']) => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      answers.push({ bytesTaken: taken, end, ms: Date.now() - started });
      if (end !== 'ended') res.destroy();
    };
    res.on('close', () => finish(sent === opts.totalBytes && taken === sent ? 'ended' : 'closed'));
    const timer = setInterval(() => {
      if (res.destroyed) return finish('closed');
      if (waitingSince !== null) {
        if (Date.now() - waitingSince >= opts.stallMs) finish('stalled');
        return;
      }
      if (sent === opts.totalBytes) return;
      const piece = chunk.subarray(0, Math.min(chunk.length, opts.totalBytes - sent));
      sent += piece.length;
      waitingSince = Date.now();
      res.write(piece, (err) => {
        if (err) return;
        taken += piece.length;
        waitingSince = null;
        if (taken === opts.totalBytes) res.end();
      });
    }, opts.intervalMs);
  };

  const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      requests.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      open.add(res);
      res.on('close', () => open.delete(res));
      stream(res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    requests,
    answers,
    url: (path = '/hook') => `https://${host}:${bound}${path}`,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
