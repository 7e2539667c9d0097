// The edge's metrics: requests and bytes by application, latency, cache hit
// rate, limiter rejections and whether the control plane is reachable.
import { Gauge } from 'prom-client';
import { edgeMetrics, limiterMetrics, registry } from '@cds/metrics';
import type { EdgeObserver } from './edge-server';

export const CONTROL_PLANE_METRIC = 'cds_edge_control_plane_reachable';

function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'cut';
}

/** Unknown hostnames have no application: their requests count under `-`. */
const NO_APPLICATION = '-';

let reachableGauge: Gauge | undefined;

export function edgeMetricsObserver(): EdgeObserver {
  const m = edgeMetrics();
  const limiter = limiterMetrics();
  // One registration per process, however many edges a test starts.
  const reachable = (reachableGauge ??= new Gauge({ name: CONTROL_PLANE_METRIC, help: '1 while the edge reaches its database, 0 while it serves from cache alone.', registers: [registry] }));
  reachable.set(1);
  for (const cache of ['route', 'certificate', 'assertion']) for (const result of ['hit', 'miss']) m.cacheLookups.inc({ cache, result }, 0);
  return {
    answered(slug, status, bytes, seconds) {
      const application = slug ?? NO_APPLICATION;
      const cls = statusClass(status);
      m.requests.inc({ application, status_class: cls });
      if (bytes > 0) m.responseBytes.inc({ application }, bytes);
      m.duration.observe({ status_class: cls }, seconds);
    },
    cacheLookup(cache, hit) {
      m.cacheLookups.inc({ cache, result: hit ? 'hit' : 'miss' });
    },
    limited(limit) {
      limiter.rejections.inc({ server: 'edge', limiter: limit });
    },
    controlPlane(state) {
      reachable.set(state.reachable ? 1 : 0);
    },
  };
}
