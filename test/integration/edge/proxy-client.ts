// A client that speaks to the edge as a load balancer would: a PROXY protocol
// header (v1 text or v2 binary, written here by hand) on a raw connection,
// then TLS, HTTP/1.1 or HTTP/2 over it.
import http, { type IncomingHttpHeaders } from 'node:http';
import http2 from 'node:http2';
import net, { isIPv4 } from 'node:net';
import tls from 'node:tls';

export function proxyV1(source: string, destination = '192.0.2.1', sourcePort = 51_000, destinationPort = 443): Buffer {
  return Buffer.from(`PROXY ${isIPv4(source) ? 'TCP4' : 'TCP6'} ${source} ${destination} ${sourcePort} ${destinationPort}\r\n`);
}

const V2_SIGNATURE = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');

function v2(command: number, familyTransport: number, block: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(block.length);
  return Buffer.concat([V2_SIGNATURE, Buffer.from([0x20 | command, familyTransport]), length, block]);
}

function addressBytes(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  // Expand `::` into the zero groups it stands for.
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const all = [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  return Buffer.from(all.map((g) => g.padStart(4, '0')).join(''), 'hex');
}

/** A v2 PROXY header (TCP) carrying `source`; a TLV after the addresses, as balancers add. */
export function proxyV2(source: string, destination = isIPv4(source) ? '192.0.2.1' : '2001:db8::1'): Buffer {
  const ports = Buffer.from([0xc7, 0x38, 0x01, 0xbb]);
  const noop = Buffer.from([0x04, 0x00, 0x02, 0x00, 0x00]);
  return v2(0x1, isIPv4(source) ? 0x11 : 0x21, Buffer.concat([addressBytes(source), addressBytes(destination), ports, noop]));
}

/** A v2 PROXY header as proxyV2 writes it, but for a UDP datagram (transport DGRAM): no TCP client's address. */
export function proxyV2Datagram(source: string): Buffer {
  const header = proxyV2(source);
  header[13] = isIPv4(source) ? 0x12 : 0x22;
  return header;
}

/** A v2 LOCAL header: the balancer's own connection (a health check); no client address. */
export function proxyV2Local(): Buffer {
  return v2(0x0, 0x00, Buffer.alloc(0));
}

/** A raw connection to `port` that has sent `header` (nothing when null). */
export function connectWithHeader(port: number, header: Buffer | null): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      if (header) socket.write(header);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

/** Resolves with what the server sent once it closed the connection (or reset it). */
export function closedBy(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** TLS over a connection that began with `header`; the handshake starts `pauseMs` after it (0: at once, in the same packet). */
export async function tlsWithHeader(port: number, header: Buffer | null, servername: string, ca: string, alpn: string, pauseMs = 0): Promise<tls.TLSSocket> {
  const raw = await connectWithHeader(port, header);
  if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ socket: raw, servername, ca, ALPNProtocols: [alpn] }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** One HTTP/1.1 request over an established connection (TLS or not), answered and the connection closed. */
export function http1Over(socket: net.Socket, host: string, path = '/'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ createConnection: () => socket, path, headers: { host, connection: 'close' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One HTTP/2 request over an established TLS connection that agreed on h2. */
export function http2Over(socket: tls.TLSSocket, authority: string, path = '/'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://${authority}`, { createConnection: () => socket });
    session.on('error', reject);
    const req = session.request({ ':path': path, ':authority': authority });
    req.on('error', reject);
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    req.on('response', (h) => {
      status = Number(h[':status']);
      headers = h as IncomingHttpHeaders;
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      session.close();
      resolve({ status, headers, body: Buffer.concat(chunks).toString() });
    });
    req.end();
  });
}
