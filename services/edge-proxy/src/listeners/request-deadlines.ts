// Slow and silent clients (DECISIONS §5): a request body that makes no
// progress for `progressMs`, or a request not received whole within
// `requestMs`, is ended: 408 while an answer can still be sent, else its
// stream (HTTP/2) or connection (HTTP/1.1) is reset. Request headers have their
// own deadline: Node's headersTimeout on HTTP/1.1, the session's idleness on
// HTTP/2 (tls-listener.ts). Node's requestTimeout already ends an HTTP/1.1
// request past `requestMs`; HTTP/2 has no such thing, so it is kept here.
import { constants as h2 } from 'node:http2';
import { isHttp2, type EdgeRequest, type EdgeResponse } from './client-messages';

/** Time a request body may go without a byte from the client (DECISIONS §5). */
export const BODY_PROGRESS_TIMEOUT_MS = 30_000;

export interface RequestDeadlineOptions {
  /** Time the body may make no progress (BODY_PROGRESS_TIMEOUT_MS unless a test shortens it). */
  progressMs: number;
  /** Time the whole request has to arrive (EDGE_REQUEST_TIMEOUT). */
  requestMs: number;
}

export interface RequestWatch {
  /** True once a deadline ended the request: nothing more is to be done with it. */
  readonly expired: boolean;
  /** What ends the exchange with the origin when a deadline ends the request (the forwarder's `abandon`), told the status the client got (0: reset). */
  onExpire(stop: (status: number, reason: string) => void): void;
}

const ANSWER = 'Request timed out.\n';

/** Whether the client still has request bytes to send: it has not ended its stream, or Node has not parsed the whole message. */
function receiving(req: EdgeRequest): boolean {
  if (!isHttp2(req)) return !req.complete;
  const { stream } = req;
  if (stream.destroyed || stream.endAfterHeaders) return false;
  return stream.state.remoteClose !== 1;
}

/** Bytes the client sent that the edge (or the origin behind it) has not taken yet: a stall that is not the client's. */
function waitingOnUs(req: EdgeRequest): boolean {
  return req.readableLength > 0 || (isHttp2(req) && req.stream.readableLength > 0);
}

/**
 * Watches one request that has a body (the caller decides: a request without
 * one was whole with its headers). The timers live until the response closes.
 */
export function watchRequest(req: EdgeRequest, res: EdgeResponse, opts: RequestDeadlineOptions): RequestWatch {
  let expired = false;
  let stop: ((status: number, reason: string) => void) | null = null;
  let whole: NodeJS.Timeout | null = null;

  // Activity in either direction refreshes these timers; a quiet spell after the request came whole is no concern.
  const quiet = () => {
    if (expired) return;
    if (!receiving(req)) return disarm();
    // Backpressure from the origin holds the client back: not a stalled client.
    if (waitingOnUs(req)) return arm();
    expire();
  };
  const arm = () => {
    if (isHttp2(req)) req.stream.setTimeout(opts.progressMs);
    else req.socket.setTimeout(opts.progressMs);
  };
  const disarm = () => {
    if (isHttp2(req)) {
      if (!req.stream.destroyed) req.stream.setTimeout(0);
    } else if (!res.writableFinished) {
      // Once the response is done Node has set its own keep-alive timeout on the socket.
      req.socket.setTimeout(0);
    }
  };

  const expire = () => {
    expired = true;
    if (whole) clearTimeout(whole);
    disarm();
    if (!res.headersSent && !res.writableEnded && !res.destroyed) {
      // The forwarder stops the origin exchange once this answer has left; the client's stream ends with it.
      stop?.(408, 'request timeout');
      const headers = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...(isHttp2(req) ? {} : { connection: 'close' }) };
      res.writeHead(408, headers);
      const closeStream = () => {
        if (isHttp2(req) && !req.stream.destroyed) req.stream.close(h2.NGHTTP2_NO_ERROR);
      };
      (res as { end(text: string, cb: () => void): void }).end(ANSWER, closeStream);
      return;
    }
    stop?.(0, 'request timeout');
    if (isHttp2(req)) {
      if (!req.stream.destroyed) req.stream.close(h2.NGHTTP2_CANCEL);
    } else {
      req.socket.destroy();
    }
  };

  if (isHttp2(req)) {
    req.stream.on('timeout', quiet);
    req.stream.setTimeout(opts.progressMs);
    whole = setTimeout(() => {
      if (receiving(req)) expire();
    }, opts.requestMs);
    whole.unref();
  } else {
    req.socket.setTimeout(opts.progressMs);
    // Node's server destroys a socket whose timeout nobody listens for: the response's listener takes it.
    res.on('timeout', quiet);
  }
  res.once('close', () => {
    if (whole) clearTimeout(whole);
    if (isHttp2(req) && !req.stream.destroyed) req.stream.setTimeout(0);
  });

  return {
    get expired() {
      return expired;
    },
    onExpire(fn) {
      stop = fn;
    },
  };
}
