import type { RequestListener } from 'node:http';

export interface HealthState {
  /** False once shutdown began or while a dependency the service cannot work without is down. */
  ready(): boolean;
  /** Extra state for /readyz, which then answers JSON `{ready, ...detail}` (the edge's control-plane reachability); undefined: plain text. */
  detail?(): Record<string, unknown> | undefined;
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
      const detail = health.detail?.();
      if (detail) res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ready, ...detail }));
      else res.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ready\n' : 'not ready\n');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  };
}
