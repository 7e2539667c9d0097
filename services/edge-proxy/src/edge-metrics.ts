// The edge's metrics: requests and bytes by application, latency, cache hit
// rate, limiter rejections and whether the control plane is reachable.
// Counters are summed in plain maps per request and handed to prom-client when
// scraped (setEdgeCollect): labelled prom-client updates are a visible share
// of a proxied request's CPU time.
import { Gauge } from 'prom-client';
import { edgeMetrics, limiterMetrics, registry, setEdgeCollect } from '@cds/metrics';
import type { EdgeObserver } from './edge-server';

export const CONTROL_PLANE_METRIC = 'cds_edge_control_plane_reachable';

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

function statusClass(status: number): string {
  return status >= 100 && status < 600 ? (STATUS_CLASSES[Math.floor(status / 100) - 1] as string) : 'cut';
}

/** Unknown hostnames have no application: their requests count under `-`. */
const NO_APPLICATION = '-';
const SEPARATOR = '\u0000';

let reachableGauge: Gauge | undefined;

export function edgeMetricsObserver(): EdgeObserver {
  const m = edgeMetrics();
  const limiter = limiterMetrics();
  // One registration per process, however many edges a test starts.
  const reachable = (reachableGauge ??= new Gauge({ name: CONTROL_PLANE_METRIC, help: '1 while the edge reaches its database, 0 while it serves from cache alone.', registers: [registry] }));
  reachable.set(1);
  for (const cache of ['route', 'certificate', 'assertion']) for (const result of ['hit', 'miss']) m.cacheLookups.inc({ cache, result }, 0);

  let requests = new Map<string, number>();
  let bytes = new Map<string, number>();
  let lookups = new Map<string, number>();
  const durationByClass = new Map<string, { observe(value: number): void }>();
  setEdgeCollect(() => {
    const [r, b, l] = [requests, bytes, lookups];
    requests = new Map();
    bytes = new Map();
    lookups = new Map();
    for (const [key, n] of r) {
      const [application, cls] = key.split(SEPARATOR) as [string, string];
      m.requests.inc({ application, status_class: cls }, n);
    }
    for (const [application, n] of b) m.responseBytes.inc({ application }, n);
    for (const [key, n] of l) {
      const [cache, result] = key.split(SEPARATOR) as [string, string];
      m.cacheLookups.inc({ cache, result }, n);
    }
  });

  return {
    answered(slug, status, sent, seconds) {
      const application = slug ?? NO_APPLICATION;
      const cls = statusClass(status);
      const key = application + SEPARATOR + cls;
      requests.set(key, (requests.get(key) ?? 0) + 1);
      if (sent > 0) bytes.set(application, (bytes.get(application) ?? 0) + sent);
      let histogram = durationByClass.get(cls);
      if (!histogram) durationByClass.set(cls, (histogram = m.duration.labels({ status_class: cls })));
      histogram.observe(seconds);
    },
    cacheLookup(cache, hit) {
      const key = cache + SEPARATOR + (hit ? 'hit' : 'miss');
      lookups.set(key, (lookups.get(key) ?? 0) + 1);
    },
    limited(limit) {
      limiter.rejections.inc({ server: 'edge', limiter: limit });
    },
    controlPlane(state) {
      reachable.set(state.reachable ? 1 : 0);
    },
  };
}
