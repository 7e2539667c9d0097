// The HTTPS listener, HTTP/2 and HTTP/1.1 by ALPN: the certificate by SNI,
// then each request or WebSocket upgrade (HTTP/1.1) through the request-target
// check and the admission chain to the forwarder, and its count; slow and
// silent clients are ended by the request deadlines and the session's idleness.
import http, { type IncomingMessage } from 'node:http';
import http2, { type Http2SecureServer, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { Duplex } from 'node:stream';
import type { SecureContext, TLSSocket } from 'node:tls';
import type { AdmissionChain, Admission } from '../admission/admission';
import type { LiveWebSockets } from '../admission/live-websockets';
import { sniName, type CertificateEntry } from '../caches/certificate-store';
import type { RefreshingCache } from '../caches/refreshing-cache';
import type { DomainRoute, Route } from '../caches/route-table';
import { clientAddressOf } from '../connections/client-address';
import { isWebSocketUpgrade, originRequestHeaders } from '../forwarding/forward-headers';
import { hasBody, type Forwarder, type ForwardOutcome } from '../forwarding/forwarder';
import { originFormTarget } from '../forwarding/request-target';
import type { EdgeObserver, TrafficSink } from '../observing/edge-observer';
import { requestAuthority, type EdgeRequest, type EdgeResponse } from './client-messages';
import type { EdgeAnswers } from './edge-answers';
import { httpsLocation, PAGES } from './edge-pages';
import { MAX_HEADER_BYTES } from './listening';
import { watchRequest, type RequestDeadlineOptions } from './request-deadlines';
import { answerClientErrors, rawAnswer } from './socket-answers';

const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_256_GCM_SHA384',
  'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
].join(':');

/** A TLS handshake must finish within this (DECISIONS §5); a client that never starts one is closed then. */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** Streams one HTTP/2 client may have open at once (nginx's default). */
const MAX_CONCURRENT_STREAMS = 128;

/** An HTTP/2 session closed for idleness is destroyed this long after its GOAWAY, whatever its streams (DECISIONS §5). */
const IDLE_SESSION_GRACE_MS = 10_000;

export interface TlsListenerDeps {
  routes: RefreshingCache<Route>;
  certificates: RefreshingCache<CertificateEntry>;
  admission: AdmissionChain;
  forwarder: Forwarder;
  answers: EdgeAnswers;
  observer: EdgeObserver;
  traffic: TrafficSink;
  serverOptions: http.ServerOptions;
  /** Body progress and whole-request deadlines of requests with a body. */
  deadlines: RequestDeadlineOptions;
  /** Joined WebSockets, closed when their domain is no longer served. */
  webSockets: LiveWebSockets;
  /** The HTTPS port visitors use, in redirects (EDGE_PUBLIC_HTTPS_PORT). */
  publicHttpsPort: () => number;
}

export interface TlsListener {
  readonly server: Http2SecureServer;
  /** Upgraded sockets leave the HTTP server's bookkeeping: the edge's close() cuts them itself. */
  readonly upgraded: ReadonlySet<Duplex>;
  /** Closes idle HTTP/1.1 connections and asks every HTTP/2 session to close once its streams are done. */
  closeIdleConnections(): void;
  /** Cuts every connection past its handshake. */
  closeAllConnections(): void;
}

/** The client sent the whole request (END_STREAM) and its answer is not done. */
function awaitsAnswer(stream: ServerHttp2Stream): boolean {
  return !stream.destroyed && stream.state.remoteClose === 1;
}

export function createTlsListener(deps: TlsListenerDeps): TlsListener {
  const { routes, certificates, admission, forwarder, answers, observer } = deps;

  /** The certificate for the SNI name, shown only for the live domain it was issued to. */
  function selectCertificate(servername: string, cb: (err: Error | null, context?: SecureContext) => void): void {
    const name = sniName(servername);
    if (name === null) return cb(new Error('unrecognized name'));
    const refuse = () => cb(new Error(`no certificate for ${name}`));
    // A deleted domain's certificate (until the checker removes the row) never is.
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
  }

  function forwardContext(req: EdgeRequest, authority: string | undefined, assertion: string) {
    return { clientAddress: clientAddressOf(req.socket), host: authority as string, proto: 'https' as const, assertion };
  }

  function counted(route: DomainRoute, started: number): (outcome: ForwardOutcome) => void {
    return (outcome) => {
      if (outcome.answered) deps.traffic.record(route.application.id, outcome.bytes);
      observer.answered(route.application.slug, outcome.status, outcome.bytes, (performance.now() - started) / 1000);
    };
  }

  function serve(req: EdgeRequest, res: EdgeResponse): void {
    const started = performance.now();
    if (answers.refusedFraming(req, res, started)) return;
    const authority = requestAuthority(req);
    const target = originFormTarget(req.url ?? '', authority);
    if (target === null) return answers.page(res, PAGES.badTarget, null, started);
    // A request without a body was whole with its headers: nothing to wait for.
    const watch = hasBody(req) ? watchRequest(req, res, deps.deadlines) : null;
    const proceed = (admitted: Admission) => {
      // A deadline already ended the request while admission waited.
      if (watch?.expired) return;
      if ('page' in admitted) return answers.page(res, admitted.page, admitted.slug, started, admitted.headers);
      if ('redirect' in admitted) return answers.redirect(res, httpsLocation(admitted.redirect, deps.publicHttpsPort(), target), admitted.slug, started);
      const { route, assertion } = admitted;
      const headers = originRequestHeaders(req.rawHeaders, forwardContext(req, authority, assertion));
      const abandon = forwarder.forward(req, res, route.originUrl as string, target, headers, counted(route, started));
      watch?.onExpire(abandon);
    };
    try {
      const admitted = admission.admit(req);
      if (admitted instanceof Promise) admitted.then(proceed).catch((err: unknown) => answers.failed(res, err));
      else proceed(admitted);
    } catch (err) {
      answers.failed(res, err);
    }
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const started = performance.now();
    if (!isWebSocketUpgrade(req.headers.upgrade) || req.method !== 'GET') return rawAnswer(socket, 400, 'Bad Request', 'Only WebSocket upgrades (GET) are proxied.\n');
    const target = originFormTarget(req.url ?? '', req.headers.host);
    if (target === null) return rawAnswer(socket, 400, 'Bad Request', PAGES.badTarget.text);
    const admitted = await admission.admit(req);
    // The client left while its upgrade waited: nothing to answer, nothing to open at the origin.
    if (socket.destroyed) return;
    if ('page' in admitted) {
      const extra = admitted.headers ? Object.entries(admitted.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') : '';
      return rawAnswer(socket, admitted.page.status, http.STATUS_CODES[admitted.page.status] ?? '', admitted.page.text, extra);
    }
    if ('redirect' in admitted) {
      return rawAnswer(socket, 308, 'Permanent Redirect', '', `location: ${httpsLocation(admitted.redirect, deps.publicHttpsPort(), target)}\r\n`);
    }
    const { route, assertion } = admitted;
    const headers = originRequestHeaders(req.rawHeaders, forwardContext(req, req.headers.host, assertion));
    deps.webSockets.add(socket, route);
    forwarder.upgrade(socket, head, route.originUrl as string, target, headers, counted(route, started));
  }

  const server = http2.createSecureServer(
    {
      // ALPN: Node offers h2, then http/1.1 since HTTP/1.1 is allowed.
      allowHTTP1: true,
      // No certificate here on purpose: a handshake without SNI has nothing to be shown and fails.
      minVersion: 'TLSv1.2',
      // AEAD only, AES-128-GCM first and the server's order wins (as Go's TLS does):
      // as strong in practice as AES-256 and cheaper per byte.
      ciphers: TLS_CIPHERS,
      honorCipherOrder: true,
      SNICallback: selectCertificate,
      handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
      settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS, maxHeaderListSize: MAX_HEADER_BYTES },
    },
    serve,
  );
  // Node's HTTP/1.1 side of this server reads its timeouts from these properties, not from the options.
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval, maxHeaderSize } = deps.serverOptions;
  Object.assign(server, { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval, maxHeaderSize });

  const connections = new Set<TLSSocket>();
  server.on('secureConnection', (socket: TLSSocket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    const streams = new Set<ServerHttp2Stream>();
    session.on('stream', (stream: ServerHttp2Stream) => {
      streams.add(stream);
      stream.once('close', () => streams.delete(stream));
    });
    session.once('close', () => sessions.delete(session));
    // An HTTP/2 connection idle as long as an HTTP/1.1 one may be is closed (GOAWAY), and destroyed a little
    // later whatever its streams: a stream still being sent must not hold the connection open. A request the
    // client sent whole waits on the origin (ORIGIN_TIMEOUT bounds it), not on the client: not idle; the
    // answer's frames wake this timer again.
    // A session without a stream may still hold a header block that never ends (HEADERS without END_HEADERS
    // makes no stream yet): it goes once the headers deadline (10 s) is up, counted from its last frame.
    const idleMs = keepAliveTimeout ?? 5_000;
    session.setTimeout(idleMs, () => {
      if ([...streams].some(awaitsAnswer)) return;
      session.close();
      const grace = streams.size === 0 ? Math.max(0, (headersTimeout ?? 10_000) - idleMs) : IDLE_SESSION_GRACE_MS;
      setTimeout(() => session.destroy(), grace).unref();
    });
  });
  // A session's protocol error ends that session; nothing to answer.
  server.on('sessionError', () => undefined);

  const upgraded = new Set<Duplex>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node's HTTP server removes its 'error' listener when it hands the socket over (only an internal
    // one of the TLS layer is left): ours comes at once, so a client that resets now, while admission
    // waits or after a refusal, can never raise an unhandled error.
    socket.on('error', () => socket.destroy());
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    upgrade(req, socket, head).catch(() => rawAnswer(socket, 503, 'Service Unavailable', PAGES.unavailable.text));
  });
  answerClientErrors(server);
  // Not TLS, a refused SNI, a handshake past its time, a client that left mid-handshake: drop the socket,
  // nothing to answer (Node's own listener would pass it on as an HTTP client error).
  server.removeAllListeners('tlsClientError');
  server.on('tlsClientError', (_err: Error, socket: Duplex) => socket.destroy());
  return {
    server,
    upgraded,
    closeIdleConnections() {
      // Node's HTTP/2 server has it for its HTTP/1.1 connections; its types do not say so.
      (server as unknown as http.Server).closeIdleConnections();
      for (const session of sessions) session.close();
    },
    closeAllConnections() {
      for (const session of sessions) session.destroy();
      for (const socket of connections) socket.destroy();
    },
  };
}
