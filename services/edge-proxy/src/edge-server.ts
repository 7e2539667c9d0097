// The edge: an HTTPS listener that picks the certificate by SNI and forwards
// ready domains to their application's origin, and a plain-HTTP listener for
// ACME HTTP-01 answers and redirects. Serving path: SNI -> certificate cache ->
// Host check -> route cache -> limits -> assertion -> forwarder -> counters.
// This file builds the caches and both listeners, and closes them.
import type { DataStore } from '@cds/data';
import type { Logger } from '@cds/logging';
import type { Bus, Subscription } from '@cds/messaging';
import { AdmissionChain } from './admission';
import { AssertionSigner } from './assertion-signer';
import { subscribeCacheInvalidation } from './cache-invalidation';
import { createCertificateStore } from './certificate-store';
import { ControlPlaneHealth, type ControlPlaneState } from './control-plane';
import { EdgeAnswers } from './edge-answers';
import { silentObserver, type EdgeObserver, type TrafficSink } from './edge-observer';
import { Forwarder } from './forwarder';
import { listenerOptions, listenOn } from './listening';
import { createPlainListener } from './plain-listener';
import { ProxyLimiter } from './proxy-limiter';
import { createRouteTable } from './route-table';
import { createTlsListener } from './tls-listener';

export interface EdgeOptions {
  store: DataStore;
  logger: Logger;
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
  /** Clock of the proxied-request limits' windows, epoch ms (default Date.now; tests start a window at will). */
  limiterNow?: () => number;
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
    if (state.reachable) logger.info('control plane reachable again', { ...state });
    else logger.warn('control plane unreachable: serving from cache', { ...state });
  });
  const onLoad = (ok: boolean, error?: unknown) => health.record(ok, error);
  const routes = createRouteTable({ store, onLoad });
  const certificates = createCertificateStore({ store, dataEncryptionKey: opts.dataEncryptionKey, onLoad });
  const signer = new AssertionSigner({ store, dataEncryptionKey: opts.dataEncryptionKey, deploymentKey: opts.deploymentKey, onLoad });
  const limiter = new ProxyLimiter({ store, onError: (err) => health.record(false, err), ...(opts.limiterNow ? { now: opts.limiterNow } : {}) });
  const forwarder = new Forwarder({ originTimeoutMs: opts.originTimeoutMs, originCa: opts.originCa });
  const sweeper = setInterval(() => limiter.sweep(), 10_000).unref();

  const subscription: Subscription | null = opts.bus ? await subscribeCacheInvalidation(opts.bus, { routes, certificates, signer }) : null;

  const admission = new AdmissionChain({ routes, limiter, signer, observer });
  const answers = new EdgeAnswers(observer, logger);
  const serverOptions = listenerOptions(opts.headersTimeoutMs ?? 10_000);
  const tls = createTlsListener({ routes, certificates, admission, forwarder, answers, observer, traffic: opts.traffic, serverOptions });
  /** The bound HTTPS port (known after listen), for redirects. */
  let httpsPort = opts.httpsPort;
  const plain = createPlainListener({ store, admission, answers, serverOptions, httpsPort: () => httpsPort });

  httpsPort = await listenOn(tls.server, opts.httpsPort, opts.bindAddress);
  const httpPort = await listenOn(plain, opts.httpPort, opts.bindAddress);
  logger.info('edge listening', { https: httpsPort, http: httpPort });

  return {
    httpsPort,
    httpPort,
    controlPlane: () => health.state(),
    async close(graceMs = 20_000) {
      clearInterval(sweeper);
      const servers = [tls.server, plain];
      const closing = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      for (const server of servers) server.closeIdleConnections();
      const deadline = setTimeout(() => {
        for (const server of servers) server.closeAllConnections();
        for (const socket of tls.upgraded) socket.destroy();
      }, graceMs);
      await closing;
      clearTimeout(deadline);
      await subscription?.cancel();
      await forwarder.close();
    },
  };
}
