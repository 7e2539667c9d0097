// The edge: an HTTPS listener that picks the certificate by SNI and forwards
// ready domains to their application's origin, and a plain-HTTP listener for
// ACME HTTP-01 answers and redirects. Serving path: SNI -> certificate cache ->
// Host check -> route cache -> limits -> assertion -> forwarder -> counters.
import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { errorMessage } from '@cds/core';
import type { DataStore } from '@cds/data';
import type { Bus, Delivery, Subscription } from '@cds/messaging';
import { meteredDeadLetters, meteredHandler } from '@cds/metrics';
import { AssertionSigner } from './assertion-signer';
import { createCertificateStore, sniName, type CertificateEntry } from './certificate-store';
import { answerChallenge } from './challenge-responder';
import { ControlPlaneHealth, type ControlPlaneState } from './control-plane';
import { hostName, NOT_READY_RETRY_AFTER_SECONDS, PAGES, sendPage, type Page } from './edge-pages';
import { clientAddress, isWebSocketUpgrade, originRequestHeaders } from './forward-headers';
import { Forwarder, type ForwardOutcome } from './forwarder';
import { ProxyLimiter, type LimitVerdict } from './proxy-limiter';
import { createRouteTable, type DomainRoute, type Route } from './route-table';

export interface EdgeLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

/** Where forwarded requests are counted (the traffic counter). */
export interface TrafficSink {
  record(applicationId: string, responseBytes: number): void;
}

/** What the edge reports per answered request (metrics). */
export interface EdgeObserver {
  answered(slug: string | null, status: number, bytes: number, seconds: number): void;
  cacheLookup(cache: 'route' | 'certificate' | 'assertion', hit: boolean): void;
  limited(limit: string): void;
  controlPlane(state: ControlPlaneState): void;
}

export interface EdgeOptions {
  store: DataStore;
  logger: EdgeLogger;
  /** Fan-out of domain changes; without it the caches' TTLs alone bound staleness. */
  bus?: Bus;
  traffic: TrafficSink;
  observer?: EdgeObserver;
  httpsPort: number;
  httpPort: number;
  bindAddress: string;
  dataEncryptionKey: Buffer;
  deploymentKey: { kid: string; secret: string };
  originTimeoutMs: number;
  originCa?: string | null;
  /** Time a client has to send its request headers: then 408. */
  headersTimeoutMs?: number;
}

export interface Edge {
  readonly httpsPort: number;
  readonly httpPort: number;
  controlPlane(): ControlPlaneState;
  /** Graceful: refuses new connections, lets requests in flight finish (up to `graceMs`), then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_256_GCM_SHA384',
  'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
].join(':');

type Admission = { route: DomainRoute; assertion: string } | { page: Page; slug: string | null; headers?: Record<string, string | number> };

const EMPTY_OBSERVER: EdgeObserver = { answered() {}, cacheLookup() {}, limited() {}, controlPlane() {} };

function listenOn(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** How long a socket that got a raw answer may stay open for the client to read it and close its side. */
const RAW_ANSWER_LINGER_MS = 5_000;

/** Ends the connection after what is already written; nothing more is read from it. */
function endConnection(socket: Duplex, last = ''): void {
  socket.end(last);
  // Drop what the client still sends, and the socket itself if the client never closes its side.
  socket.resume();
  setTimeout(() => socket.destroy(), RAW_ANSWER_LINGER_MS).unref();
}

/** A raw HTTP answer on a socket that has no ServerResponse (parse errors, refused upgrades). */
function rawAnswer(socket: Duplex, status: number, reason: string, text: string, extra = ''): void {
  if (!socket.writable) return void socket.destroy();
  endConnection(socket, `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extra}connection: close\r\n\r\n${text}`);
}

/** The response Node's HTTP server has under way on a connection, from its own bookkeeping. */
function responseUnderWay(socket: Duplex): ServerResponse | null {
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

/**
 * A request body framed by a transfer coding the edge does not forward as is:
 * only `chunked` alone is taken (Node's parser already refuses `chunked` twice
 * or not last). Another coding before it (`gzip, chunked`) would reach the
 * origin without its coding, since the forwarder frames the body anew.
 */
function unsupportedTransferEncoding(req: IncomingMessage): boolean {
  const codings = req.headers['transfer-encoding'];
  return codings !== undefined && codings.toLowerCase() !== 'chunked';
}

export async function startEdge(opts: EdgeOptions): Promise<Edge> {
  const { store, logger } = opts;
  const observer = opts.observer ?? EMPTY_OBSERVER;
  const health = new ControlPlaneHealth((state) => {
    observer.controlPlane(state);
    if (state.reachable) logger.info('control plane reachable again', { ...state });
    else logger.warn('control plane unreachable: serving from cache', { ...state });
  });
  const onLoad = (ok: boolean, error?: unknown) => health.record(ok, error);
  const routes = createRouteTable({ store, onLoad });
  const certificates = createCertificateStore({ store, dataEncryptionKey: opts.dataEncryptionKey, onLoad });
  const signer = new AssertionSigner({ store, dataEncryptionKey: opts.dataEncryptionKey, deploymentKey: opts.deploymentKey, onLoad });
  const limiter = new ProxyLimiter({ store, onError: (err) => health.record(false, err) });
  const forwarder = new Forwarder({ originTimeoutMs: opts.originTimeoutMs, originCa: opts.originCa });
  const sweeper = setInterval(() => limiter.sweep(), 10_000).unref();

  let subscription: Subscription | null = null;
  if (opts.bus) {
    // One exclusive queue per pod; counted as consumer "edge-cache" like the checker's and the dispatcher's consumers.
    const consumer = 'edge-cache';
    subscription = await opts.bus.subscribe({
      queue: `${consumer}.${randomBytes(6).toString('hex')}`,
      exclusive: true,
      routingKeys: ['domain.changed'],
      onDeadLetter: meteredDeadLetters(consumer),
      handler: meteredHandler(
        consumer,
        async (message: Delivery) => {
          if (message.routingKey !== 'domain.changed') return;
          routes.invalidate(message.payload.hostname);
          certificates.invalidate(message.payload.hostname);
          signer.forget(message.payload.domain_id);
        },
        // The outbox row's time travels with the message; a redelivery's lag was counted the first time.
        { writtenAt: (message) => (message.redelivered ? null : message.writtenAt) },
      ),
    });
  }

  /** The route, from the cache when it can be used as is. Throws only when the database is away and the name was never seen. */
  function routeOf(name: string): Promise<Route> | Route {
    const cached = routes.peek(name);
    observer.cacheLookup('route', cached !== undefined);
    return cached ?? routes.get(name);
  }

  function pageOf(route: Route): Page | null {
    if (route.kind === 'unknown') return PAGES.unknownHostname;
    if (route.status === 'pending_dns') return PAGES.pendingDns;
    if (route.status !== 'ready') return PAGES.attentionRequired;
    if (route.originUrl === null) return PAGES.noOrigin;
    return null;
  }

  function answerPage(res: ServerResponse, page: Page, slug: string | null, started: number, headers?: Record<string, string | number>): void {
    sendPage(res, page, headers ?? (page.status === 503 ? { 'retry-after': NOT_READY_RETRY_AFTER_SECONDS } : {}));
    observer.answered(slug, page.status, 0, (performance.now() - started) / 1000);
  }

  /**
   * Checks shared by requests and upgrades: SNI = Host, a ready domain with an
   * origin, limits, the assertion. A page when refused. Answers without a
   * promise when everything is cached (the common case): each step only waits
   * when its cache has nothing usable.
   */
  function admit(req: IncomingMessage): Admission | Promise<Admission> {
    const servername = (req.socket as TLSSocket).servername;
    const sni = typeof servername === 'string' ? sniName(servername) : null;
    const host = hostName(req.headers.host);
    if (host === null) return { page: PAGES.badRequest, slug: null };
    if (host !== sni) return { page: PAGES.misdirected, slug: null };
    const cached = routes.peek(sni);
    observer.cacheLookup('route', cached !== undefined);
    return cached !== undefined ? admitRoute(cached) : routes.get(sni).then(admitRoute);
  }

  function admitRoute(route: Route): Admission | Promise<Admission> {
    const page = pageOf(route);
    if (page || route.kind !== 'domain') return { page: page ?? PAGES.unknownHostname, slug: route.kind === 'domain' ? route.application.slug : null };
    const verdict = limiter.check(route.application);
    return 'allowed' in verdict ? admitLimited(route, verdict) : verdict.then((v) => admitLimited(route, v));
  }

  function admitLimited(route: DomainRoute, verdict: LimitVerdict): Admission | Promise<Admission> {
    if (!verdict.allowed) {
      observer.limited(verdict.limit ?? 'proxied_requests');
      return { page: PAGES.rateLimited, slug: route.application.slug, headers: { 'retry-after': verdict.retryAfter } };
    }
    const assertion = signer.peek(route);
    observer.cacheLookup('assertion', assertion !== undefined);
    return assertion !== undefined ? { route, assertion } : signer.assertionFor(route).then((signed) => ({ route, assertion: signed }));
  }

  function forwardContext(req: IncomingMessage, assertion: string) {
    return { clientAddress: clientAddress(req.socket.remoteAddress), host: req.headers.host as string, proto: 'https' as const, assertion };
  }

  function counted(route: DomainRoute, started: number): (outcome: ForwardOutcome) => void {
    return (outcome) => {
      if (outcome.answered) opts.traffic.record(route.application.id, outcome.bytes);
      observer.answered(route.application.slug, outcome.status, outcome.bytes, (performance.now() - started) / 1000);
    };
  }

  /**
   * Connections whose framing was refused. Node parses and hands over requests a
   * client pipelined behind the refused one before the refusal is written: none
   * of them is served, the connection closes after the refusal.
   */
  const refusedConnections = new WeakSet<object>();

  /** Answers 501 and closes when the request's framing is refused; true then. */
  function refusedFraming(req: IncomingMessage, res: ServerResponse, started: number): boolean {
    if (refusedConnections.has(req.socket)) return true;
    if (!unsupportedTransferEncoding(req)) return false;
    refusedConnections.add(req.socket);
    answerPage(res, PAGES.unsupportedTransferEncoding, null, started, { connection: 'close' });
    return true;
  }

  function serveHttps(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    if (refusedFraming(req, res, started)) return;
    const proceed = (admitted: Admission) => {
      if ('page' in admitted) return answerPage(res, admitted.page, admitted.slug, started, admitted.headers);
      const { route, assertion } = admitted;
      forwarder.forward(req, res, route.originUrl as string, originRequestHeaders(req.rawHeaders, forwardContext(req, assertion)), counted(route, started));
    };
    try {
      const admitted = admit(req);
      if (admitted instanceof Promise) admitted.then(proceed).catch((err: unknown) => failed(res, err));
      else proceed(admitted);
    } catch (err) {
      failed(res, err);
    }
  }

  async function upgradeHttps(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const started = performance.now();
    if (!isWebSocketUpgrade(req.headers.upgrade) || req.method !== 'GET') return rawAnswer(socket, 400, 'Bad Request', 'Only WebSocket upgrades (GET) are proxied.\n');
    const admitted = await admit(req);
    // The client left while its upgrade waited: nothing to answer, nothing to open at the origin.
    if (socket.destroyed) return;
    if ('page' in admitted) {
      const extra = admitted.headers ? Object.entries(admitted.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') : '';
      return rawAnswer(socket, admitted.page.status, http.STATUS_CODES[admitted.page.status] ?? '', admitted.page.text, extra);
    }
    const { route, assertion } = admitted;
    const headers = originRequestHeaders(req.rawHeaders, forwardContext(req, assertion));
    forwarder.upgrade(req, socket, head, route.originUrl as string, headers, counted(route, started));
  }

  function failed(res: ServerResponse, err: unknown): void {
    logger.warn('edge request failed', { error: errorMessage(err) });
    if (!res.headersSent) sendPage(res, PAGES.unavailable, { 'retry-after': 5 });
    else res.destroy();
  }

  const headersTimeout = opts.headersTimeoutMs ?? 10_000;
  const serverOptions = {
    // Slow or endless headers: 408 after headersTimeout; oversized ones: 431 (Node's 16 KiB default).
    headersTimeout,
    requestTimeout: Math.max(headersTimeout, 300_000),
    keepAliveTimeout: 5_000,
    // How often Node looks for connections past those timeouts (its default, 30 s, would let a slow client sit far longer).
    connectionsCheckingInterval: 1_000,
  };

  const httpsServer = https.createServer(
    {
      ...serverOptions,
      // No certificate here on purpose: a handshake without SNI has nothing to be shown and fails.
      minVersion: 'TLSv1.2',
      ALPNProtocols: ['http/1.1'],
      // AEAD only, AES-128-GCM first and the server's order wins (as Go's TLS does):
      // as strong in practice as AES-256 and cheaper per byte.
      ciphers: TLS_CIPHERS,
      honorCipherOrder: true,
      SNICallback: (servername, cb) => {
        const name = sniName(servername);
        if (name === null) return cb(new Error('unrecognized name'));
        const refuse = () => cb(new Error(`no certificate for ${name}`));
        // A certificate is shown only for the live domain it was issued to: a deleted
        // domain's certificate (until the checker removes the row) never is.
        const answer = (entry: CertificateEntry, route: Route) =>
          entry.context !== null && route.kind === 'domain' && route.domainId === entry.domainId ? cb(null, entry.context) : refuse();
        const cachedCertificate = certificates.peek(name);
        const cachedRoute = routes.peek(name);
        observer.cacheLookup('certificate', cachedCertificate !== undefined);
        if (cachedCertificate && cachedRoute) return answer(cachedCertificate, cachedRoute);
        Promise.all([cachedCertificate ?? certificates.get(name), cachedRoute ?? routes.get(name)]).then(
          ([entry, route]) => answer(entry, route),
          (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
        );
      },
    },
    serveHttps,
  );
  // Upgraded sockets leave the HTTP server's bookkeeping: close() cuts them itself.
  const upgraded = new Set<Duplex>();
  httpsServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node's HTTP server removes its 'error' listener when it hands the socket over (only an internal
    // one of the TLS layer is left): ours comes at once, so a client that resets now, while admission
    // waits or after a refusal, can never raise an unhandled error.
    socket.on('error', () => socket.destroy());
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    upgradeHttps(req, socket, head).catch(() => rawAnswer(socket, 503, 'Service Unavailable', PAGES.unavailable.text));
  });

  /** The bound HTTPS port (known after listen), for redirects. */
  let httpsPort = opts.httpsPort;
  const httpServer = http.createServer(serverOptions, (req, res) => void servePlain(req, res).catch((err: unknown) => failed(res, err)));

  async function servePlain(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    if (refusedFraming(req, res, started)) return;
    const url = req.url ?? '/';
    if (url.startsWith('/.well-known/acme-challenge/')) {
      const { status, body } = await answerChallenge(store, req.method, url);
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) }).end(body);
      return;
    }
    const host = hostName(req.headers.host);
    if (host === null) return answerPage(res, PAGES.badRequest, null, started);
    const route = await routeOf(host);
    const page = pageOf(route);
    if (route.kind === 'domain' && (page === null || page === PAGES.noOrigin)) {
      const port = httpsPort === 443 ? '' : `:${httpsPort}`;
      res.writeHead(308, { location: `https://${host}${port}${url.startsWith('/') ? url : '/'}`, 'content-length': 0 }).end();
      return;
    }
    answerPage(res, page ?? PAGES.unknownHostname, route.kind === 'domain' ? route.application.slug : null, started);
  }

  // Malformed request heads never reach a handler: answer what can be answered, then close.
  for (const server of [httpsServer, httpServer]) {
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      const code = err.code ?? '';
      if (code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
      // The error came after the head (a bad body, a refused framing): that request's answer has begun,
      // and a second status line would corrupt it. The connection ends after what was written.
      if (responseUnderWay(socket)?.headersSent) return endConnection(socket);
      if (code === 'HPE_HEADER_OVERFLOW') return rawAnswer(socket, 431, 'Request Header Fields Too Large', 'Request headers too large.\n');
      if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return rawAnswer(socket, 408, 'Request Timeout', 'Request timed out.\n');
      rawAnswer(socket, 400, 'Bad Request', 'Malformed request.\n');
    });
  }
  // Not TLS, a refused SNI, a client that left mid-handshake: drop the socket, nothing to answer.
  httpsServer.on('tlsClientError', (_err: Error, socket: Duplex) => socket.destroy());

  httpsPort = await listenOn(httpsServer, opts.httpsPort, opts.bindAddress);
  const httpPort = await listenOn(httpServer, opts.httpPort, opts.bindAddress);
  logger.info('edge listening', { https: httpsPort, http: httpPort });

  return {
    httpsPort,
    httpPort,
    controlPlane: () => health.state(),
    async close(graceMs = 20_000) {
      clearInterval(sweeper);
      const closing = Promise.all([httpsServer, httpServer].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      httpsServer.closeIdleConnections();
      httpServer.closeIdleConnections();
      const deadline = setTimeout(() => {
        httpsServer.closeAllConnections();
        httpServer.closeAllConnections();
        for (const socket of upgraded) socket.destroy();
      }, graceMs);
      await closing;
      clearTimeout(deadline);
      await subscription?.cancel();
      await forwarder.close();
    },
  };
}
