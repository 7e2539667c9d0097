// Starting and stopping a node HTTP server (the API's express app, the ops
// listener); plain node:http, so a worker needs no express to serve /healthz.
import http, { type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listen(handler: RequestListener, port: number, host: string): Promise<http.Server> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000; // longer than common load balancer idle timeouts
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function boundPort(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}

/** Stops accepting, lets in-flight requests finish, closes idle keep-alive sockets. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeIdleConnections();
  });
}
