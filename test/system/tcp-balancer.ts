// A TCP load balancer on loopback in front of the edges' plain-HTTP ports, as a
// deployment has one: Pebble validates HTTP-01 through it (its `httpPort`), so
// either edge may answer a challenge. Connections go round-robin; a backend
// that refuses the connection (a killed edge) is skipped for the next one.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpBalancer {
  port: number;
  /** Connections forwarded per backend port. */
  forwarded: Map<number, number>;
  close(): Promise<void>;
}

export async function startTcpBalancer(backends: readonly number[], port = 0): Promise<TcpBalancer> {
  let next = 0;
  const forwarded = new Map<number, number>(backends.map((b) => [b, 0]));
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.pause();
    // This connection's turn: the next backend, then the others in order when one refuses.
    const first = next++;
    const tryBackend = (k: number) => {
      const backend = backends[(first + k) % backends.length] as number;
      const upstream = net.connect({ host: '127.0.0.1', port: backend });
      sockets.add(upstream);
      upstream.once('close', () => sockets.delete(upstream));
      upstream.once('error', () => {
        upstream.destroy();
        if (k + 1 < backends.length && !client.destroyed) tryBackend(k + 1);
        else client.destroy();
      });
      upstream.once('connect', () => {
        forwarded.set(backend, (forwarded.get(backend) ?? 0) + 1);
        upstream.removeAllListeners('error');
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    tryBackend(0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    forwarded,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
