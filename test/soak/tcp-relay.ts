// A TCP relay on loopback in front of a real server (PostgreSQL in the soak
// tests). cut() makes the server look stopped to whoever connects through the
// relay, without touching the server itself, which other suites keep using.
import net, { type AddressInfo, type Socket } from 'node:net';

export interface TcpRelay {
  /** The relay's loopback port: connect here instead of to the target. */
  readonly port: number;
  /** Connections open through the relay now. */
  readonly open: number;
  /** Connections reset on arrival while cut: the client kept trying. */
  readonly refused: number;
  /** Resets every open connection and every new one until restore(). */
  cut(): void;
  /** Forwards new connections again. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const pairs = new Set<[Socket, Socket]>();
  let cut = false;
  let refused = 0;

  /** A reset, as a stopped server's host answers, rather than an orderly close. */
  const reset = (pair: [Socket, Socket]): void => {
    pairs.delete(pair);
    if (!pair[0].destroyed) pair[0].resetAndDestroy();
    pair[1].destroy();
  };

  // While cut the relay keeps listening and resets each connection at once:
  // giving up the port could let another process take it before restore().
  const server = net.createServer((client) => {
    if (cut) {
      refused += 1;
      return void client.resetAndDestroy();
    }
    const upstream = net.connect(target);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    // pipe() passes an orderly end on; an error on either side ends both.
    const fail = () => reset(pair);
    const closed = () => {
      pairs.delete(pair);
      client.end();
      upstream.end();
    };
    client.on('error', fail).on('close', closed);
    upstream.on('error', fail).on('close', closed);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as AddressInfo).port,
    get open() {
      return pairs.size;
    },
    get refused() {
      return refused;
    },
    cut() {
      cut = true;
      for (const pair of [...pairs]) reset(pair);
    },
    restore() {
      cut = false;
    },
    close() {
      cut = true;
      for (const pair of [...pairs]) reset(pair);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
