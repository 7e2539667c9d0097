// An HTTP/2 client for the edge tests: a session to the edge's HTTPS port with
// the SNI name chosen, and requests whose :authority (and any Host) is set apart from it.
import http2, { type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';

export interface H2Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A session to 127.0.0.1:`port` with SNI `servername`, once its TLS handshake and SETTINGS are done. */
export function openH2(port: number, servername: string, caPem: string): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { servername, ca: caPem });
    session.once('connect', () => {
      session.off('error', reject);
      // A session the edge closes (GOAWAY, idle timeout) must not fail the test by itself.
      session.on('error', () => undefined);
      resolve(session);
    });
    session.once('error', reject);
  });
}

/** One request on `session`; :authority is `authority` (the SNI name the caller chose, unless testing otherwise). */
export function h2Request(
  session: ClientHttp2Session, authority: string, path = '/', opts: { method?: string; headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const method = opts.method ?? 'GET';
    const stream = session.request({ ':method': method, ':path': path, ':authority': authority, ...opts.headers }, { endStream: opts.body === undefined });
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => { headers = h; });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks).toString() }));
    stream.on('error', reject);
    if (opts.body !== undefined) stream.end(opts.body);
  });
}

/** One request on a session of its own, closed afterwards. */
export async function h2Get(
  port: number, servername: string, caPem: string, path = '/', opts: { authority?: string; method?: string; headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<H2Answer> {
  const session = await openH2(port, servername, caPem);
  try {
    return await h2Request(session, opts.authority ?? servername, path, opts);
  } finally {
    session.close();
  }
}
