// The HTTPS listener: the certificate by SNI, then each request or WebSocket
// upgrade through the admission chain to the forwarder, and its count.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { SecureContext } from 'node:tls';
import type { AdmissionChain, Admission } from './admission';
import { sniName, type CertificateEntry } from './certificate-store';
import type { EdgeAnswers } from './edge-answers';
import type { EdgeObserver, TrafficSink } from './edge-observer';
import { PAGES } from './edge-pages';
import { clientAddress, isWebSocketUpgrade, originRequestHeaders } from './forward-headers';
import type { Forwarder, ForwardOutcome } from './forwarder';
import type { RefreshingCache } from './refreshing-cache';
import type { DomainRoute, Route } from './route-table';
import { answerClientErrors, rawAnswer } from './socket-answers';

const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_256_GCM_SHA384',
  'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
].join(':');

export interface TlsListenerDeps {
  routes: RefreshingCache<Route>;
  certificates: RefreshingCache<CertificateEntry>;
  admission: AdmissionChain;
  forwarder: Forwarder;
  answers: EdgeAnswers;
  observer: EdgeObserver;
  traffic: TrafficSink;
  serverOptions: http.ServerOptions;
}

export interface TlsListener {
  readonly server: https.Server;
  /** Upgraded sockets leave the HTTP server's bookkeeping: the edge's close() cuts them itself. */
  readonly upgraded: ReadonlySet<Duplex>;
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

  function forwardContext(req: IncomingMessage, assertion: string) {
    return { clientAddress: clientAddress(req.socket.remoteAddress), host: req.headers.host as string, proto: 'https' as const, assertion };
  }

  function counted(route: DomainRoute, started: number): (outcome: ForwardOutcome) => void {
    return (outcome) => {
      if (outcome.answered) deps.traffic.record(route.application.id, outcome.bytes);
      observer.answered(route.application.slug, outcome.status, outcome.bytes, (performance.now() - started) / 1000);
    };
  }

  function serve(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    if (answers.refusedFraming(req, res, started)) return;
    const proceed = (admitted: Admission) => {
      if ('page' in admitted) return answers.page(res, admitted.page, admitted.slug, started, admitted.headers);
      const { route, assertion } = admitted;
      forwarder.forward(req, res, route.originUrl as string, originRequestHeaders(req.rawHeaders, forwardContext(req, assertion)), counted(route, started));
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
    const admitted = await admission.admit(req);
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

  const server = https.createServer(
    {
      ...deps.serverOptions,
      // No certificate here on purpose: a handshake without SNI has nothing to be shown and fails.
      minVersion: 'TLSv1.2',
      ALPNProtocols: ['http/1.1'],
      // AEAD only, AES-128-GCM first and the server's order wins (as Go's TLS does):
      // as strong in practice as AES-256 and cheaper per byte.
      ciphers: TLS_CIPHERS,
      honorCipherOrder: true,
      SNICallback: selectCertificate,
    },
    serve,
  );
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
  // Not TLS, a refused SNI, a client that left mid-handshake: drop the socket, nothing to answer.
  server.on('tlsClientError', (_err: Error, socket: Duplex) => socket.destroy());
  return { server, upgraded };
}
