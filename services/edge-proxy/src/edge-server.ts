// The edge: an HTTPS listener that picks the certificate by SNI and forwards
// ready domains to their application's origin, and a plain-HTTP listener for
// ACME HTTP-01 answers and redirects. Serving path: SNI -> certificate cache ->
// Host check -> route cache -> limits -> assertion -> forwarder -> counters.
// This file builds the caches, the change feed that keeps them current (on a
// store of its own when given one), the budget of reads of names the caches
// hold for nothing, and both listeners, and closes them.
import { SecretBoxError, type DataKeys } from '@cds/core';
import type { DataStore } from '@cds/data';
import type { Logger } from '@cds/logging';
import type { Bus, Subscription } from '@cds/messaging';
import { AdmissionChain } from './admission/admission';
import { AssertionSigner } from './admission/assertion-signer';
import { CheckRequests } from './admission/check-requests';
import { LiveWebSockets } from './admission/live-websockets';
import { ProxyLimiter } from './admission/proxy-limiter';
import { createCertificateStore } from './caches/certificate-store';
import { LiveNames } from './caches/live-names';
import { ReadBudget } from './caches/read-budget';
import { createRouteTable } from './caches/route-table';
import { PendingChallenges } from './challenges/pending-challenges';
import { subscribeCacheInvalidation } from './changes/cache-invalidation';
import { ChangeFeed } from './changes/change-feed';
import { ConnectionGate, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_CLIENT, type ProxyProtocolOptions } from './connections/connection-gate';
import { Forwarder } from './forwarding/forwarder';
import { EdgeAnswers } from './listeners/edge-answers';
import { DEFAULT_REQUEST_TIMEOUT_MS, listenerOptions, listenOn } from './listeners/listening';
import { createPlainListener } from './listeners/plain-listener';
import { BODY_PROGRESS_TIMEOUT_MS } from './listeners/request-deadlines';
import { createTlsListener } from './listeners/tls-listener';
import { ControlPlaneHealth, type ControlPlaneState } from './observing/control-plane';
import { silentObserver, type DatabaseReadPurpose, type EdgeObserver, type TrafficSink } from './observing/edge-observer';

/** Reads per second (and burst) of names LiveNames says are unknown, per cache: a flood of random names costs at most this. */
const UNKNOWN_NAME_READS = { perSecond: 5, burst: 20 };

/**
 * Reads per second (and burst) of names the caches hold nothing for and LiveNames cannot vouch for, routes and
 * certificates together, per edge process: every such name while LiveNames is not loaded or the feed has stalled.
 * Past it such a name is answered "temporarily unavailable" instead of read, and cached names are served as before.
 */
const MISS_READS = { perSecond: 500, burst: 1_000 };

export interface EdgeOptions {
  store: DataStore;
  /** The change feed's store, a connection of its own (edge-service opens one); the edge's store when absent. */
  feedStore?: DataStore;
  /** A cached entry loaded this long ago is read again whatever the feed says (EDGE_CACHE_MAX_AGE; default 5 min). */
  cacheMaxAgeMs?: number;
  /** The budget of reads of names held for nothing (default MISS_READS; tests make it small). */
  missReads?: { perSecond: number; burst: number };
  logger: Logger;
  /** Fan-out of domain changes (at once); without it the change feed alone brings them, within about a second. */
  bus?: Bus;
  /**
   * ACME_DNS_ZONE (DECISIONS §13): set, a pending_dns domain may have its certificate before its routing passes, and a
   * request that reaches it asks the checker (on `bus`) to check it at once. Absent or null: nothing is asked.
   */
  acmeDnsZone?: string | null;
  traffic: TrafficSink;
  observer?: EdgeObserver;
  httpsPort: number;
  /** The HTTPS port visitors use, in redirects (EDGE_PUBLIC_HTTPS_PORT); absent or null: the bound HTTPS port. */
  publicHttpsPort?: number | null;
  httpPort: number;
  bindAddress: string;
  /** The keys that open sealed values (DATA_ENCRYPTION_KEYS; one key: DATA_ENCRYPTION_KEY). */
  dataEncryptionKey: DataKeys;
  deploymentKey: { kid: string; secret: string };
  originTimeoutMs: number;
  originCa?: string | null;
  /** Time a client has to send its request headers: then 408 (DECISIONS §5: 10 s; tests shorten it). */
  headersTimeoutMs?: number;
  /** Time a request body may make no progress: then 408 or a reset (DECISIONS §5: 30 s; tests shorten it). */
  bodyProgressTimeoutMs?: number;
  /** Time a client has to send a whole request (EDGE_REQUEST_TIMEOUT; default 5 min). */
  requestTimeoutMs?: number;
  /** A proxied WebSocket quiet both ways this long is closed (EDGE_WEBSOCKET_IDLE_TIMEOUT; default 10 min). */
  websocketIdleTimeoutMs?: number;
  /** Clock of the proxied-request limits' windows, epoch ms (default Date.now; tests start a window at will). */
  limiterNow?: () => number;
  /** Open client connections of both listeners together (EDGE_MAX_CONNECTIONS; default 20000). */
  maxConnections?: number;
  /** Open connections of one client address (EDGE_MAX_CONNECTIONS_PER_CLIENT; default 256). */
  maxConnectionsPerClient?: number;
  /** Set: every connection on both listeners starts with a PROXY protocol header from a trusted peer (EDGE_PROXY_PROTOCOL). */
  proxyProtocol?: ProxyProtocolOptions | null;
}

export interface Edge {
  readonly httpsPort: number;
  readonly httpPort: number;
  controlPlane(): ControlPlaneState;
  /** Graceful: refuses new connections, lets requests in flight finish (up to `graceMs`), then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

export async function startEdge(opts: EdgeOptions): Promise<Edge> {
  const { store, logger } = opts;
  const observer = opts.observer ?? silentObserver;
  const health = new ControlPlaneHealth((state) => {
    observer.controlPlane(state);
    const fields = { reachable: state.reachable, since: state.since, last_error: state.lastError, failures: state.failures };
    if (state.reachable) logger.info('control plane reachable again', fields);
    else logger.warn('control plane unreachable: serving from cache', fields);
  });
  // A sealed value that does not open is one row's fault (altered, or copied from another row), not an unreachable database.
  const onLoad = (ok: boolean, error?: unknown) =>
    error instanceof SecretBoxError ? logger.error('a sealed value in the database does not open', { error: error.message }) : health.record(ok, error);
  const onUnreadable = (hostname: string, err: SecretBoxError) =>
    logger.error('the certificate key of a hostname does not open: no certificate is shown for it', { hostname, error: err.message });
  const read = (purpose: DatabaseReadPurpose) => () => observer.databaseRead?.(purpose);
  const names = new LiveNames();
  // One budget for the misses of both caches, its refusals logged together every 10 s; every entry is read again at
  // the maximum age.
  const missReads = new ReadBudget(opts.missReads ?? MISS_READS);
  let missesRefused = 0;
  // A name LiveNames vouches for is read whatever the budget: a cold cache after a restart fills at once for live
  // names; the budget bounds what a flood can cost while LiveNames cannot answer (not loaded yet, the feed stalled).
  const missBudget = { take: (hostname: string) => feed.vouchesFor(hostname) || missReads.take() || ((missesRefused += 1), false) };
  const missReport = setInterval(() => {
    if (missesRefused > 0) logger.warn('edge read budget spent: names not cached answered as temporarily unavailable', { refused: missesRefused, seconds: 10 });
    missesRefused = 0;
  }, 10_000).unref();
  const maxAgeMs = opts.cacheMaxAgeMs;
  // The caches ask the change feed (built next, from them) since when they are current and which names are certainly
  // unknown; a few of those a second are read all the same (a domain created a moment ago), the rest cost nothing.
  const freshSince = () => feed.freshSince();
  const unknownBeyond = (budget: ReadBudget) => (hostname: string) => feed.certainlyUnknown(hostname) && !budget.take();
  const routes = createRouteTable({
    store, onLoad, freshSince, certainlyUnknown: unknownBeyond(new ReadBudget(UNKNOWN_NAME_READS)), maxAgeMs, missBudget, onRead: read('route'),
  });
  const certificates = createCertificateStore({
    store, dataEncryptionKey: opts.dataEncryptionKey, onLoad, onUnreadable, freshSince, certainlyUnknown: unknownBeyond(new ReadBudget(UNKNOWN_NAME_READS)), maxAgeMs, missBudget, onRead: read('certificate'),
  });
  const signer = new AssertionSigner({ store, dataEncryptionKey: opts.dataEncryptionKey, deploymentKey: opts.deploymentKey, onLoad, freshSince, maxAgeMs, onRead: read('key') });
  const feed = new ChangeFeed({
    store: opts.feedStore ?? store, routes, certificates, signer, names, onLoad,
    onRead: (purpose) => observer.databaseRead?.(purpose),
    onNamesLoaded: (count, ms) => logger.info('edge live hostnames loaded', { count, ms }),
  });
  const challenges = new PendingChallenges(store, { onRead: read('challenge') });
  // Not awaited: a database that does not answer must not hold the listeners back.
  void feed.start();
  const limiter = new ProxyLimiter({ store, onError: (err) => health.record(false, err), ...(opts.limiterNow ? { now: opts.limiterNow } : {}) });
  const forwarder = new Forwarder({ originTimeoutMs: opts.originTimeoutMs, originCa: opts.originCa, websocketIdleTimeoutMs: opts.websocketIdleTimeoutMs });
  const sweeper = setInterval(() => limiter.sweep(), 10_000).unref();

  const subscription: Subscription | null = opts.bus ? await subscribeCacheInvalidation(opts.bus, { routes, certificates, signer, names }) : null;

  const checkRequests = opts.acmeDnsZone && opts.bus
    ? new CheckRequests({ bus: opts.bus, logger, onPublished: (ok) => observer.checkRequested?.(ok) })
    : null;
  const admission = new AdmissionChain({ routes, limiter, signer, observer, checkRequests });
  const answers = new EdgeAnswers(observer, logger);
  const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const serverOptions = listenerOptions(opts.headersTimeoutMs ?? 10_000, requestTimeoutMs);
  const deadlines = { progressMs: opts.bodyProgressTimeoutMs ?? BODY_PROGRESS_TIMEOUT_MS, requestMs: requestTimeoutMs };
  const webSockets = new LiveWebSockets((name) => routes.peek(name) ?? routes.get(name));
  /** The bound HTTPS port (known after listen), for redirects when no public port is set. */
  let httpsPort = opts.httpsPort;
  const publicHttpsPort = () => opts.publicHttpsPort ?? httpsPort;
  const tls = createTlsListener({
    routes, certificates, admission, forwarder, answers, observer, traffic: opts.traffic, serverOptions, deadlines, webSockets, publicHttpsPort,
  });
  const plain = createPlainListener({ admission, answers, challenges, observer, serverOptions, httpsPort: publicHttpsPort });
  // One cap for both listeners; behind a load balancer each connection first says who its client is.
  const gate = new ConnectionGate({
    maxConnections: opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxConnectionsPerClient: opts.maxConnectionsPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
    proxyProtocol: opts.proxyProtocol ?? null,
    onRefused: (reason) => observer.connectionRefused(reason),
  });
  gate.guard(tls.server);
  gate.guard(plain);

  httpsPort = await listenOn(tls.server, opts.httpsPort, opts.bindAddress);
  const httpPort = await listenOn(plain, opts.httpPort, opts.bindAddress);
  logger.info('edge listening', { https: httpsPort, http: httpPort });

  return {
    httpsPort,
    httpPort,
    controlPlane: () => health.state(),
    async close(graceMs = 20_000) {
      clearInterval(sweeper);
      clearInterval(missReport);
      webSockets.stop();
      await feed.stop();
      const servers = [tls.server, plain];
      const closing = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      tls.closeIdleConnections();
      plain.closeIdleConnections();
      const deadline = setTimeout(() => {
        tls.closeAllConnections();
        plain.closeAllConnections();
        for (const socket of tls.upgraded) socket.destroy();
      }, graceMs);
      await closing;
      clearTimeout(deadline);
      await subscription?.cancel();
      await forwarder.close();
    },
  };
}
