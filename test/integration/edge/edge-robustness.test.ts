// Malformed, hostile and broken traffic over real TLS: every case gets 400,
// 408 or 431 (or a closed connection), and the edge keeps serving others.
import net from 'node:net';
import tls from 'node:tls';
import { startEdgeFixture, type EdgeFixture } from './edge-fixture';

let f: EdgeFixture;
// Known before the tables below are built (they hold the raw requests).
const hostname = `robust-${process.pid}.example.net`;

beforeAll(async () => {
  f = await startEdgeFixture({ headersTimeoutMs: 1_000 });
  const app = await f.addApplication({ proxied_requests_per_second: 100_000, proxied_requests_per_minute: 1_000_000 });
  await f.addDomain(app.id, { hostname });
});
afterAll(() => f.close());

/** Writes raw bytes over TLS; resolves with everything read until the edge closes (or `waitMs` passes). */
function raw(chunks: Array<string | Buffer>, opts: { waitMs?: number; gapMs?: number; destroyAfterWrite?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: f.edge.httpsPort, servername: hostname, ca: f.caPem }, async () => {
      for (const chunk of chunks) {
        socket.write(chunk);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      if (opts.destroyAfterWrite) {
        socket.destroy();
        resolve('');
      }
    });
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve(data) : reject(err)));
    socket.on('close', () => resolve(data));
    setTimeout(() => {
      socket.destroy();
      resolve(data);
    }, opts.waitMs ?? 3_000);
  });
}

const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
const statusesOf = (response: string) => [...response.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));

async function stillServing(): Promise<void> {
  expect((await f.get(hostname, '/alive')).status).toBe(200);
}

describe('malformed requests', () => {
  it.each([
    ['a bad request line', 'GARBAGE\r\n\r\n'],
    ['an unknown HTTP version', `GET / HTTP/9.9\r\nHost: ${hostname}\r\n\r\n`],
    ['a request line with spaces in the target', `GET /a b HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`],
    ['no Host header', 'GET / HTTP/1.1\r\n\r\n'],
    ['Content-Length and Transfer-Encoding together', `POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    ['two different Content-Lengths', `POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`],
    ['a Content-Length that is not a number', `POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: 5x\r\n\r\nhello`],
    ['Transfer-Encoding with a space before the colon', `POST / HTTP/1.1\r\nHost: ${hostname}\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n`],
    ['Transfer-Encoding folded onto a second line', `POST / HTTP/1.1\r\nHost: ${hostname}\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n`],
    ['Transfer-Encoding not ending in chunked', `POST / HTTP/1.1\r\nHost: ${hostname}\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n`],
    ['a bad chunk size', `POST / HTTP/1.1\r\nHost: ${hostname}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`],
    ['a NUL byte in a header value', `GET / HTTP/1.1\r\nHost: ${hostname}\r\nX-A: a\u0000b\r\n\r\n`],
    ['a header name with a space', `GET / HTTP/1.1\r\nHost: ${hostname}\r\nX Bad: 1\r\n\r\n`],
  ])('answers 400 to %s, forwards nothing, and stays up', async (_name, request) => {
    const before = f.origin.requests.length;
    const response = await raw([request]);
    expect(statusOf(response)).toBe(400);
    expect(f.origin.requests.length).toBe(before);
    await stillServing();
  });

  it('answers 431 to 64 KiB of headers', async () => {
    const response = await raw([`GET / HTTP/1.1\r\nHost: ${hostname}\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`]);
    expect(statusOf(response)).toBe(431);
    await stillServing();
  });

  it('answers 408 to headers that never finish (slowloris)', async () => {
    const started = Date.now();
    const response = await raw([`GET / HTTP/1.1\r\nHost: ${hostname}\r\n`, 'X-A: 1\r\n', 'X-B: 2\r\n', 'X-C: 3\r\n'], { gapMs: 400, waitMs: 6_000 });
    expect(statusOf(response)).toBe(408);
    expect(Date.now() - started).toBeLessThan(5_000);
    await stillServing();
  });

  it('answers pipelined requests in order', async () => {
    const one = `GET /first HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`;
    const two = `GET /second HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`;
    const response = await raw([one + two]);
    expect(statusesOf(response)).toEqual([200, 200]);
    expect(response.indexOf('origin /first')).toBeLessThan(response.indexOf('origin /second'));
  });

  it('smuggling: a second request hidden in a body is not read as a request', async () => {
    const hidden = `GET /hidden HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`;
    const before = f.origin.requests.length;
    const response = await raw([`POST /outer HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: ${hidden.length}\r\nConnection: close\r\n\r\n${hidden}`]);
    expect(statusesOf(response)).toEqual([200]);
    const seen = f.origin.requests.slice(before);
    expect(seen.map((r) => r.url)).toEqual(['/outer']);
    expect(seen[0]?.body).toBe(hidden);
  });
});

describe('broken connections', () => {
  it('survives clients that vanish mid-headers, mid-body and while waiting for the origin', async () => {
    await raw([`GET / HTTP/1.1\r\nHost: ${hostname}\r\nX-A`], { destroyAfterWrite: true });
    await raw([`POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: 100000\r\n\r\n`, 'x'.repeat(1000)], { destroyAfterWrite: true, gapMs: 50 });
    await raw([`GET /slow/500 HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`], { destroyAfterWrite: true, gapMs: 100 });
    await raw([`GET /bytes/5000000 HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`], { destroyAfterWrite: true, gapMs: 30 });
    await new Promise((r) => setTimeout(r, 700));
    await stillServing();
  });

  it('survives an origin that resets, and TLS garbage before a handshake', async () => {
    expect((await f.get(hostname, '/reset')).status).toBe(502);
    await new Promise<void>((resolve) => {
      const s = net.connect(f.edge.httpsPort, '127.0.0.1', () => s.end('\x16\x03\x01garbage-not-tls\r\n\r\n'));
      s.resume();
      s.on('error', () => resolve());
      s.on('close', () => resolve());
    });
    await stillServing();
  });

  it('keeps serving others while 50 hostile connections are open', async () => {
    const hostile = Array.from({ length: 50 }, (_, i) => raw([`GET / HTTP/1.1\r\nHost: ${hostname}\r\nX-${i}: `], { waitMs: 1_500 }));
    await stillServing();
    await Promise.all(hostile);
    await stillServing();
  });
});
