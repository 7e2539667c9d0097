import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';

export async function listen(handler: RequestListener, port: number, host: string): Promise<http.Server> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000; // longer than common load balancer idle timeouts
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function boundPort(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}

/** Stops accepting, lets in-flight requests finish, closes idle keep-alive sockets. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeIdleConnections();
  });
}

export interface HealthState {
  /** False once shutdown began or while a dependency the service cannot work without is down. */
  ready(): boolean;
  /** Extra state for /readyz, which then answers JSON `{ready, ...detail}` (the edge's control-plane reachability). */
  detail?(): Record<string, unknown>;
}

/** Prometheus text for /metrics (libs/metrics' processMetricsSource). */
export interface OpsMetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** /healthz (process alive), /readyz (ready for traffic) and, given a source, /metrics on METRICS_PORT. */
export function opsHandler(health: HealthState, metrics?: OpsMetricsSource): RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics' && metrics) {
      metrics.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      );
    } else if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    } else if (path === '/readyz') {
      const ready = health.ready();
      if (health.detail) res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ready, ...health.detail() }));
      else res.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ready\n' : 'not ready\n');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  };
}

export interface ShutdownLogger {
  info(message: string, meta?: object): void;
  error(message: string, meta?: object): void;
}

/**
 * Time the services give their shutdown steps after SIGTERM. Fixed here, not
 * configurable: the Helm chart and k8s/ derive terminationGracePeriodSeconds
 * from it (preStop sleep + this + a margin), and a test holds them to it.
 */
export const SHUTDOWN_DEADLINE_MS = 25_000;

/**
 * On SIGTERM/SIGINT runs the steps in order (readiness off, stop accepting,
 * drain, close bus, close database) and exits 0; a timer under Kubernetes'
 * grace period forces exit 1 if a step hangs.
 */
export function onShutdown(steps: Array<[string, () => Promise<void> | void]>, logger: ShutdownLogger, deadlineMs = SHUTDOWN_DEADLINE_MS): void {
  let started = false;
  const run = async (signal: string) => {
    if (started) return;
    started = true;
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => {
      logger.error('shutdown deadline passed; exiting', { deadlineMs });
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (err) {
        logger.error('shutdown step failed', { step: name, error: String(err) });
      }
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void run('SIGTERM'));
  process.once('SIGINT', () => void run('SIGINT'));
}
