// A loopback TCP forwarder between a service under test and PostgreSQL or
// RabbitMQ, which other suites share and which must never be stopped: the
// service connects to the forwarder's port, and the test takes the server
// "away" by stopping the forwarder (every forwarded connection cut, new ones
// refused) and brings it back on the same port. Created stopped, it is a
// server that comes up late.
import net, { type AddressInfo } from 'node:net';
import { freePort } from './free-port';

export interface TcpForwarder {
  readonly port: number;
  /** Connections accepted and forwarded so far. */
  readonly connections: number;
  /** Listens (again) on `port` and forwards every connection to the target. */
  start(): Promise<void>;
  /** Stops listening and cuts every open connection: connecting is refused until start(). */
  stop(): Promise<void>;
}

/** `started: false`: the port is chosen but refused until start(). */
export async function createTcpForwarder(targetPort: number, opts: { started?: boolean } = {}): Promise<TcpForwarder> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let connections = 0;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const forwarder: TcpForwarder = {
    port,
    get connections() {
      return connections;
    },
    async start() {
      if (server) return;
      const listening = net.createServer((client) => {
        connections += 1;
        track(client);
        const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
        track(upstream);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
      });
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, '127.0.0.1', () => resolve());
      });
      if ((listening.address() as AddressInfo).port !== port) throw new Error('the forwarder did not get its port');
      server = listening;
    },
    async stop() {
      const closing = server;
      server = null;
      for (const socket of sockets) socket.destroy();
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
  };
  if (opts.started !== false) await forwarder.start();
  return forwarder;
}
