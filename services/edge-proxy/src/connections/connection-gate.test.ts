// The gate before the listeners' HTTP servers, on loopback sockets: the cap
// shared by two servers, and PROXY protocol headers read off the raw socket.
import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { clientAddressOf } from './client-address';
import { ConnectionGate, type ConnectionRefusal, type ProxyProtocolOptions } from './connection-gate';

/** An HTTP server answering each request with the client address it sees. */
function addressServer(): http.Server {
  return http.createServer((req, res) => res.end(clientAddressOf(req.socket)));
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function connect(port: number, localAddress = '127.0.0.1'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
function untilClosed(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

/** The first answer on a connection the server keeps open: its head and its Content-Length body. */
function firstAnswer(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const onData = (c: Buffer) => {
      received += c.toString();
      const headEnd = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1]);
      if (headEnd < 0 || received.length - headEnd - 4 < length) return;
      socket.off('data', onData);
      resolve(received);
    };
    socket.on('data', onData);
  });
}

/** Writes `parts` one after the other, a tick apart, so the server reads them as separate chunks. */
async function writeInParts(socket: net.Socket, parts: Array<string | Buffer>): Promise<void> {
  for (const part of parts) {
    socket.write(part);
    await new Promise((resolve) => setTimeout(resolve, 20)); // deliberate: the pause is what splits the reads
  }
}

const REQUEST = 'GET / HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n';
const bodyOf = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4);

function v2Local(): Buffer {
  return Buffer.concat([Buffer.from('0d0a0d0a000d0a515549540a', 'hex'), Buffer.from([0x20, 0x00, 0x00, 0x00])]);
}

describe('ConnectionGate', () => {
  const servers: http.Server[] = [];
  const refused: ConnectionRefusal[] = [];
  /** The server side of every connection the guarded servers accepted. */
  const accepted: net.Socket[] = [];

  /** Closes `client` and waits for its server side to close: the gate has counted the connection out by then. */
  async function hangUp(client: net.Socket): Promise<void> {
    const serverSide = accepted.find((s) => s.remotePort === client.localPort && s.remoteAddress === client.localAddress);
    if (!serverSide) throw new Error(`no accepted connection from ${client.localAddress}:${client.localPort}`);
    const closed = serverSide.closed ? Promise.resolve() : once(serverSide, 'close');
    client.destroy();
    await closed;
  }

  async function guarded(count: number, maxConnections: number, proxyProtocol: ProxyProtocolOptions | null = null, maxConnectionsPerClient?: number): Promise<number[]> {
    const gate = new ConnectionGate({ maxConnections, maxConnectionsPerClient, proxyProtocol, onRefused: (reason) => refused.push(reason) });
    const ports: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const server = addressServer();
      gate.guard(server);
      server.on('connection', (socket: net.Socket) => accepted.push(socket));
      servers.push(server);
      ports.push(await listen(server));
    }
    return ports;
  }

  afterEach(async () => {
    refused.length = 0;
    accepted.length = 0;
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('caps open connections of all its servers together, and takes new ones once one closes', async () => {
    const [a, b] = (await guarded(2, 2)) as [number, number];
    const first = await connect(a);
    const second = await connect(b);
    const third = await connect(a);
    expect(await untilClosed(third)).toBe('');
    expect(refused).toEqual(['max_connections']);
    await hangUp(first);
    const fourth = await connect(b);
    fourth.write(REQUEST);
    expect(bodyOf(await untilClosed(fourth))).toBe('127.0.0.1');
    second.destroy();
  });

  it('caps the open connections of one client address while serving other addresses, and takes it again once one closes', async () => {
    const [port] = (await guarded(1, 10, null, 2)) as [number];
    const held = [await connect(port), await connect(port)];
    const third = await connect(port);
    expect(await untilClosed(third)).toBe('');
    expect(refused).toEqual(['max_connections_per_client']);
    // 127.0.0.2 is another client (Linux routes the whole loopback range).
    const other = await connect(port, '127.0.0.2');
    other.write(REQUEST);
    expect(bodyOf(await untilClosed(other))).toBe('127.0.0.2');
    await hangUp(held[0]!);
    const again = await connect(port);
    again.write(REQUEST);
    expect(bodyOf(await untilClosed(again))).toBe('127.0.0.1');
    held[1]!.destroy();
  });

  it('without PROXY protocol, the client is the peer', async () => {
    const [port] = (await guarded(1, 10)) as [number];
    const socket = await connect(port);
    socket.write(REQUEST);
    expect(bodyOf(await untilClosed(socket))).toBe('127.0.0.1');
  });

  describe('with PROXY protocol', () => {
    const trustLoopback = { trustedCidrs: ['127.0.0.0/8'], headerTimeoutMs: 300 };

    it('takes the client address from a v1 header that arrives in pieces, the request right behind it', async () => {
      const [port] = (await guarded(1, 10, trustLoopback)) as [number];
      const socket = await connect(port);
      const answer = untilClosed(socket);
      await writeInParts(socket, ['PROX', 'Y TCP4 203.0.113.7 ', `192.0.2.1 56324 80\r\n${REQUEST}`]);
      expect(bodyOf(await answer)).toBe('203.0.113.7');
    });

    it('keeps the carried address for every request of the connection', async () => {
      const [port] = (await guarded(1, 10, trustLoopback)) as [number];
      const socket = await connect(port);
      const answer = untilClosed(socket);
      socket.write('PROXY TCP6 2001:db8::7 2001:db8::1 56324 80\r\n');
      await writeInParts(socket, ['GET / HTTP/1.1\r\nHost: a.example\r\n\r\n', REQUEST]);
      expect((await answer).split('\r\n\r\n2001:db8::7')).toHaveLength(3);
    });

    it('a v2 LOCAL header (a health check of the balancer) leaves the peer as the client', async () => {
      const [port] = (await guarded(1, 10, trustLoopback)) as [number];
      const socket = await connect(port);
      const answer = untilClosed(socket);
      socket.write(Buffer.concat([v2Local(), Buffer.from(REQUEST)]));
      expect(bodyOf(await answer)).toBe('127.0.0.1');
    });

    it('counts connections per carried address, not per balancer', async () => {
      const [port] = (await guarded(1, 10, trustLoopback, 1)) as [number];
      const held = await connect(port);
      const heldAnswer = firstAnswer(held);
      held.write(`PROXY TCP4 203.0.113.7 192.0.2.1 56324 80\r\nGET / HTTP/1.1\r\nHost: a.example\r\n\r\n`);
      // Answered, the connection still open: the gate has read its header and counts it for 203.0.113.7.
      expect(bodyOf(await heldAnswer)).toBe('203.0.113.7');
      const same = await connect(port);
      const refusedAnswer = untilClosed(same);
      same.write(`PROXY TCP4 203.0.113.7 192.0.2.1 56325 80\r\n${REQUEST}`);
      expect(await refusedAnswer).toBe('');
      expect(refused).toEqual(['max_connections_per_client']);
      const other = await connect(port);
      const answer = untilClosed(other);
      other.write(`PROXY TCP4 203.0.113.8 192.0.2.1 56326 80\r\n${REQUEST}`);
      expect(bodyOf(await answer)).toBe('203.0.113.8');
      held.destroy();
    });

    it('closes a connection from a peer outside the trusted ranges', async () => {
      const [port] = (await guarded(1, 10, { trustedCidrs: ['10.0.0.0/8'] })) as [number];
      const socket = await connect(port);
      const answer = untilClosed(socket);
      socket.write(`PROXY TCP4 203.0.113.7 192.0.2.1 56324 80\r\n${REQUEST}`);
      expect(await answer).toBe('');
      expect(refused).toEqual(['untrusted_peer']);
    });

    it('closes a connection that starts without a header, or with a broken one', async () => {
      const [port] = (await guarded(1, 10, trustLoopback)) as [number];
      for (const start of [REQUEST, 'PROXY TCP4 203.0.113.7\r\n', `PROXY TCP4 ${'1'.repeat(120)}`]) {
        const socket = await connect(port);
        const answer = untilClosed(socket);
        socket.write(start);
        expect(await answer).toBe('');
      }
      expect(refused).toEqual(['proxy_header', 'proxy_header', 'proxy_header']);
    });

    it('closes a connection whose header does not come in time', async () => {
      const [port] = (await guarded(1, 10, trustLoopback)) as [number];
      const socket = await connect(port);
      const answer = untilClosed(socket);
      socket.write('PROXY TCP4 ');
      expect(await answer).toBe('');
      expect(refused).toEqual(['proxy_header']);
    });
  });
});
