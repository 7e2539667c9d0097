// What both listeners of the edge share: their timeouts, and listening on a port.
import type http from 'node:http';
import type net from 'node:net';
import type { AddressInfo } from 'node:net';

/** Request header bytes past which a request is refused unserved, HTTP/1.1 (431) and HTTP/2 alike (DECISIONS §5). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Time a client has to send a whole request when nothing else is said (EDGE_REQUEST_TIMEOUT's default). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

/**
 * Node's server options for a listener whose clients have `headersTimeoutMs` to send their request headers
 * and `requestTimeoutMs` (EDGE_REQUEST_TIMEOUT) to send a whole request.
 */
export function listenerOptions(headersTimeoutMs: number, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): http.ServerOptions {
  return {
    // Slow or endless headers: 408 after headersTimeout; oversized ones: 431.
    headersTimeout: headersTimeoutMs,
    // Node refuses a requestTimeout below headersTimeout.
    requestTimeout: Math.max(headersTimeoutMs, requestTimeoutMs),
    maxHeaderSize: MAX_HEADER_BYTES,
    keepAliveTimeout: 5_000,
    // How often Node looks for connections past those timeouts (its default, 30 s, would let a slow client sit far longer).
    connectionsCheckingInterval: 1_000,
  };
}

/** Listens and resolves with the bound port (the one chosen when `port` is 0). */
export function listenOn(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
