// What Pebble 2.4.0 lacks, put in front of it: a reverse proxy on loopback
// that forwards every ACME request unchanged (the Host header kept, so the
// URLs Pebble writes name the proxy) and adds `renewalInfo` (RFC 9773) to the
// directory, pointing at an ARI responder on loopback whose answers a test
// sets per certificate. The proxy records what it forwards, so a test sees
// which orders reached Pebble. Like a CA that knows the certificate was
// already replaced (RFC 9773 `alreadyReplaced`), it can refuse a newOrder whose
// `replaces` a test names; like a CA that stops answering, it can hold a
// hostname's newOrder without an answer; like a CA in an outage, it can answer
// every request with an error of the test's choice.
import https from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders, RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestPebble } from './pebble';

type Listener = TestPebble['listener'];

async function listenHttps(listener: Listener, handler: RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = https.createServer({ cert: listener.cert, key: listener.key }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export interface RenewalWindow {
  start: Date;
  end: Date;
}

export interface AriResponder {
  /** The directory's `renewalInfo`: GET `<url>/<certID>` answers `{ suggestedWindow }`. */
  url: string;
  /** The window answered for a certificate id; any other id gets `fallback`. */
  windows: Map<string, RenewalWindow>;
  fallback: RenewalWindow;
  /** The Retry-After of every answer, in seconds. */
  retryAfterSeconds: number;
  /** The certificate ids asked for, oldest first. */
  asked: string[];
  /** Certificate ids whose requests get no answer (until the client gives up). */
  stalled: Set<string>;
  /** Certificate ids answered 404, as a CA answers for a certificate it did not issue. */
  unknown: Set<string>;
  close(): Promise<void>;
}

/** An ARI responder whose windows start a month from now unless a test says otherwise. */
export async function startAriResponder(listener: Listener): Promise<AriResponder> {
  const month = 30 * 86_400_000;
  const state: Omit<AriResponder, 'url' | 'close'> = {
    windows: new Map(),
    fallback: { start: new Date(Date.now() + month), end: new Date(Date.now() + month + 86_400_000) },
    retryAfterSeconds: 1,
    asked: [],
    stalled: new Set(),
    unknown: new Set(),
  };
  const server = await listenHttps(listener, (req, res) => {
    const id = /^\/renewal-info\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'GET' || !id) return void res.writeHead(404).end();
    state.asked.push(id);
    if (state.stalled.has(id)) return;
    if (state.unknown.has(id)) return void res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"type":"urn:ietf:params:acme:error:malformed","detail":"unknown certificate"}');
    const window = state.windows.get(id) ?? state.fallback;
    const body = JSON.stringify({ suggestedWindow: { start: window.start.toISOString(), end: window.end.toISOString() } });
    res.writeHead(200, { 'content-type': 'application/json', 'retry-after': String(state.retryAfterSeconds) }).end(body);
  });
  return Object.assign(state, { url: `${server.url}/renewal-info`, close: server.close });
}

export interface ForwardedRequest {
  method: string;
  path: string;
  /** The decoded JWS payload of a POST with one (null otherwise, and for POST-as-GET). */
  payload: Record<string, unknown> | null;
  /** Pebble's answer, once it came: the status and the body (its first 4000 characters). */
  answer?: { status: number; body: string };
}

/** A newOrder payload. */
export type OrderPayload = { identifiers: Array<{ type: string; value: string }>; [field: string]: unknown };

export interface AcmeProxy {
  directoryUrl: string;
  /** Every request forwarded to Pebble, oldest first. */
  forwarded: ForwardedRequest[];
  /** The payloads of the newOrder requests forwarded, oldest first. */
  orders(): OrderPayload[];
  /** newOrder requests whose `replaces` is in here are refused with `alreadyReplaced`, not forwarded. */
  refuseReplaces: Set<string>;
  /** The payloads of the newOrder requests refused, oldest first. */
  refusedOrders: Array<Record<string, unknown>>;
  /** newOrder requests for these hostnames get no answer (until the client gives up or the proxy closes). */
  stallOrdersFor: Set<string>;
  /** The payloads of the newOrder requests held, oldest first. */
  stalledOrders: OrderPayload[];
  /** Requests received and not yet answered, with how long each has waited (what a test prints when it times out). */
  unanswered(): string[];
  /** Set: every request is answered with this status and a `serverInternal` problem, not forwarded. */
  failWith: number | null;
  /** Requests received, forwarded or not. */
  received: number;
  close(): Promise<void>;
}

function jwsPayload(body: Buffer): Record<string, unknown> | null {
  try {
    const payload = (JSON.parse(body.toString('utf8')) as { payload?: string }).payload;
    return payload ? (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A proxy in front of `pebble`; with `renewalInfo`, its directory offers ACME Renewal Information there. */
export async function startAcmeProxy(pebble: TestPebble, opts: { renewalInfo?: string } = {}): Promise<AcmeProxy> {
  const upstream = new URL(pebble.directoryUrl);
  const forwarded: ForwardedRequest[] = [];
  const refuseReplaces = new Set<string>();
  const refusedOrders: Array<Record<string, unknown>> = [];
  const stallOrdersFor = new Set<string>();
  const stalledOrders: OrderPayload[] = [];
  let newOrderPath = '';
  let directoryOf: Record<string, unknown> = {};
  const waiting = new Map<IncomingMessage, number>();
  const outage = { failWith: null as number | null, received: 0 };

  const send = (method: string, path: string, headers: OutgoingHttpHeaders, body: Buffer) => new Promise<{ status: number; headers: OutgoingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const out = https.request({ host: upstream.hostname, port: upstream.port, method, path, headers, ca: pebble.listener.ca }, (res) => {
      readBody(res).then((answer) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: answer }), reject);
    });
    out.on('error', reject);
    out.end(body);
  });

  const server = await listenHttps(pebble.listener, (req, res) => {
    waiting.set(req, Date.now());
    outage.received += 1;
    res.on('close', () => waiting.delete(req));
    void (async () => {
      const body = await readBody(req);
      if (outage.failWith !== null) {
        const problem = { type: 'urn:ietf:params:acme:error:serverInternal', detail: 'the CA is down for maintenance', status: outage.failWith };
        return void res.writeHead(outage.failWith, { 'content-type': 'application/problem+json' }).end(JSON.stringify(problem));
      }
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const payload = req.method === 'POST' ? jwsPayload(body) : null;
      if (path === newOrderPath && typeof payload?.replaces === 'string' && refuseReplaces.has(payload.replaces)) {
        refusedOrders.push(payload);
        const problem = { type: 'urn:ietf:params:acme:error:alreadyReplaced', detail: `certificate ${payload.replaces} was already replaced`, status: 409 };
        // A fresh nonce, as every ACME answer carries one: Pebble's own, from its newNonce.
        const nonce = await send('HEAD', new URL(String(directoryOf.newNonce)).pathname, { host: req.headers.host }, Buffer.alloc(0));
        return void res.writeHead(409, { 'content-type': 'application/problem+json', 'replay-nonce': String(nonce.headers['replay-nonce']) }).end(JSON.stringify(problem));
      }
      const names = (payload?.identifiers as Array<{ value: string }> | undefined)?.map((identifier) => identifier.value) ?? [];
      if (path === newOrderPath && names.some((name) => stallOrdersFor.has(name))) {
        stalledOrders.push(payload as OrderPayload);
        return;
      }
      const record: ForwardedRequest = { method: req.method ?? '', path, payload };
      forwarded.push(record);
      const answer = await send(req.method ?? 'GET', req.url ?? '/', req.headers, body);
      record.answer = { status: answer.status, body: answer.body.subarray(0, 4000).toString('utf8') };
      if (path === upstream.pathname && answer.status === 200) {
        const directory = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
        directoryOf = directory;
        newOrderPath = new URL(String(directory.newOrder)).pathname;
        if (opts.renewalInfo) directory.renewalInfo = opts.renewalInfo;
        answer.body = Buffer.from(JSON.stringify(directory));
        delete answer.headers['transfer-encoding'];
        answer.headers['content-length'] = answer.body.length;
      }
      res.writeHead(answer.status, answer.headers).end(answer.body);
    })().catch((err: unknown) => res.writeHead(502, { 'content-type': 'text/plain' }).end(String(err)));
  });

  return Object.assign(outage, {
    directoryUrl: `${server.url}${upstream.pathname}`,
    forwarded,
    orders: () => forwarded.filter((f) => f.method === 'POST' && f.path === newOrderPath && f.payload !== null)
      .map((f) => f.payload as OrderPayload),
    refuseReplaces,
    refusedOrders,
    stallOrdersFor,
    stalledOrders,
    unanswered: () => [...waiting].map(([req, since]) => `${req.method ?? ''} ${req.url ?? ''} for ${Date.now() - since} ms`),
    close: server.close,
  });
}

/** The DNS names an order asked for. */
export const orderNames = (order: OrderPayload): string[] => order.identifiers.map((i) => i.value);
