// A client that speaks raw bytes to an edge listener (over TLS with a chosen
// SNI, or plain TCP), can reset its connection with a real TCP RST, and the
// malformed requests the robustness tests send to in-process and real edges.
import net from 'node:net';
import tls from 'node:tls';

export interface RawTarget {
  port: number;
  /** TLS with this SNI name (trusting `ca`); plain TCP when absent. */
  servername?: string;
  ca?: string;
}

export interface RawConnection {
  /** Everything read so far, as latin1 text. */
  readonly received: string;
  /** True once the peer closed or reset the connection. */
  readonly ended: boolean;
  write(data: string | Buffer): void;
  /** Resolves once what was read satisfies `predicate`; rejects after `waitMs` or when the connection ends first. */
  until(predicate: (received: string) => boolean, waitMs?: number): Promise<void>;
  /** Resolves with `closed` when the peer ends the connection within `waitMs`, else `open`. */
  closed(waitMs: number): Promise<'closed' | 'open'>;
  /** A real TCP RST (SO_LINGER 0) from this side, not an orderly close, once what was written has left. */
  reset(): Promise<void>;
  destroy(): void;
}

/** Connects (and, for TLS, completes the handshake). */
export function openRaw(target: RawTarget): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const tcp = net.connect(target.port, '127.0.0.1');
    const socket: net.Socket = target.servername === undefined ? tcp : tls.connect({ socket: tcp, servername: target.servername, ca: target.ca });
    let received = '';
    let ended = false;
    // Resetting the TCP socket under TLS while a write is still queued crashes Node (a use after free in
    // its TLS stream), so reset() waits for every write's callback.
    let writing: Promise<void> = Promise.resolve();
    const waiters = new Set<() => void>();
    const changed = () => {
      for (const waiter of [...waiters]) waiter();
    };
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      changed();
    });
    // Resets and write errors both end the connection; the tests judge by what was read.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      ended = true;
      changed();
    });
    const connection: RawConnection = {
      get received() {
        return received;
      },
      get ended() {
        return ended;
      },
      write(data) {
        const written = new Promise<void>((done) => socket.write(data, () => done()));
        writing = writing.then(() => written);
      },
      until(predicate, waitMs = 5_000) {
        return new Promise((done, fail) => {
          const timer = setTimeout(() => finish(new Error(`not seen within ${waitMs} ms; read so far: ${JSON.stringify(received.slice(0, 300))}`)), waitMs);
          const finish = (err?: Error) => {
            clearTimeout(timer);
            waiters.delete(check);
            if (err) fail(err);
            else done();
          };
          const check = () => {
            if (predicate(received)) finish();
            else if (ended) finish(new Error(`connection ended first; read: ${JSON.stringify(received.slice(0, 300))}`));
          };
          waiters.add(check);
          check();
        });
      },
      closed(waitMs) {
        return new Promise((done) => {
          const timer = setTimeout(() => finish('open'), waitMs);
          const finish = (state: 'closed' | 'open') => {
            clearTimeout(timer);
            waiters.delete(check);
            done(state);
          };
          const check = () => {
            if (ended) finish('closed');
          };
          waiters.add(check);
          check();
        });
      },
      async reset() {
        await writing;
        await new Promise((resolve) => setImmediate(resolve));
        if (!tcp.destroyed) tcp.resetAndDestroy();
        socket.destroy();
      },
      destroy: () => void socket.destroy(),
    };
    const ready = target.servername === undefined ? 'connect' : 'secureConnect';
    socket.once(ready, () => {
      socket.off('error', reject);
      resolve(connection);
    });
    socket.once('error', reject);
  });
}

/** Writes `chunks` (`gapMs` apart) and resolves with everything read until the edge closes the connection or `waitMs` passes. */
export async function exchange(target: RawTarget, chunks: Array<string | Buffer>, opts: { waitMs?: number; gapMs?: number } = {}): Promise<string> {
  const connection = await openRaw(target);
  for (const chunk of chunks) {
    connection.write(chunk);
    if (opts.gapMs) await new Promise((resolve) => setTimeout(resolve, opts.gapMs));
  }
  await connection.closed(opts.waitMs ?? 3_000);
  connection.destroy();
  return connection.received;
}

export const statusOf = (response: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
export const statusesOf = (response: string): number[] => [...response.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));

/** Requests Node's parser refuses: each must get 400 and reach no origin. */
export function malformedRequests(host: string): Array<[name: string, request: string]> {
  return [
    ['a bad request line', 'GARBAGE\r\n\r\n'],
    ['an unknown HTTP version', `GET / HTTP/9.9\r\nHost: ${host}\r\n\r\n`],
    ['a request line with spaces in the target', `GET /a b HTTP/1.1\r\nHost: ${host}\r\n\r\n`],
    ['bare LF line endings', `GET / HTTP/1.1\nHost: ${host}\n\n`],
    ['no Host header', 'GET / HTTP/1.1\r\n\r\n'],
    ['two different Content-Lengths', `POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`],
    ['a Content-Length that is not a number', `POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 5x\r\n\r\nhello`],
    ['a negative Content-Length', `POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Length: -1\r\n\r\n`],
    ['Transfer-Encoding folded onto a second line', `POST / HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n`],
    ['Transfer-Encoding not ending in chunked', `POST / HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n`],
    ['a bad chunk size', `POST / HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`],
    ['a NUL byte in a header value', `GET / HTTP/1.1\r\nHost: ${host}\r\nX-A: a\u0000b\r\n\r\n`],
    ['a header name with a space', `GET / HTTP/1.1\r\nHost: ${host}\r\nX Bad: 1\r\n\r\n`],
    ['a header line without a colon', `GET / HTTP/1.1\r\nHost: ${host}\r\nNoColonHere\r\n\r\n`],
  ];
}

/**
 * Transfer-Encoding smuggling forms. Each request's body holds a second
 * request (`GET <hidden>`) that a proxy reading the framing another way would
 * forward; `answer` is what the edge must say (400: refused by the parser; 501:
 * refused by the edge, which takes a body with no transfer coding or with
 * `chunked` alone). Nothing may reach the origin.
 */
export function smugglingRequests(host: string, hidden: string): Array<[name: string, request: string, answer: 400 | 501]> {
  const smuggled = `GET ${hidden} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
  const body = `0\r\n\r\n${smuggled}`;
  const post = (headers: string) => `POST /outer HTTP/1.1\r\nHost: ${host}\r\n${headers}\r\n${body}`;
  return [
    ['Transfer-Encoding: xchunked', post('Transfer-Encoding: xchunked\r\n'), 501],
    ['Transfer-Encoding with a space before the colon', post('Transfer-Encoding : chunked\r\n'), 400],
    ['Transfer-Encoding: chunked, chunked', post('Transfer-Encoding: chunked, chunked\r\n'), 400],
    ['two Transfer-Encoding: chunked headers', post('Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n'), 400],
    ['Transfer-Encoding: chunked then Transfer-Encoding: identity', post('Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n'), 400],
    ['Transfer-Encoding before Content-Length', post(`Transfer-Encoding: chunked\r\nContent-Length: ${body.length}\r\n`), 400],
    ['Content-Length before Transfer-Encoding', post(`Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n`), 400],
    ['xchunked with a Content-Length covering the hidden request', post(`Content-Length: ${body.length}\r\nTransfer-Encoding: xchunked\r\n`), 400],
    ['a vertical tab before chunked', post('Transfer-Encoding:\u000bchunked\r\n'), 400],
    ['Transfer-Encoding: identity then Transfer-Encoding: chunked', post('Transfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n'), 501],
    ['Transfer-Encoding: gzip, chunked', post('Transfer-Encoding: gzip, chunked\r\n'), 501],
  ];
}

/** Upgrade requests the edge must refuse (with this status; 0: the connection closed without an answer). */
export function malformedUpgrades(host: string, otherHost: string): Array<[name: string, request: string, answer: number]> {
  const ws = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
  return [
    ['an upgrade to something else than WebSocket', `GET /ws HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n`, 400],
    ['a WebSocket upgrade whose Host is another site', `GET /ws HTTP/1.1\r\nHost: ${otherHost}\r\n${ws}\r\n`, 421],
    ['a WebSocket upgrade without Host', `GET /ws HTTP/1.1\r\n${ws}\r\n`, 400],
    ['a WebSocket upgrade by POST with a body', `POST /ws HTTP/1.1\r\nHost: ${host}\r\n${ws}Content-Length: 5\r\n\r\nhello`, 400],
    ['a WebSocket upgrade with 64 KiB of headers', `GET /ws HTTP/1.1\r\nHost: ${host}\r\n${ws}X-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`, 431],
    ['a WebSocket upgrade with a header name with a space', `GET /ws HTTP/1.1\r\nHost: ${host}\r\n${ws}X Bad: 1\r\n\r\n`, 400],
    ['CONNECT', `CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`, 0],
  ];
}
