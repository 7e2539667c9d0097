// The edge's metrics: requests and bytes by application, latency, cache hit
// rate, limiter rejections, refused connections and whether the control plane
// is reachable.
// Counters are summed in plain maps per request and handed to prom-client when
// scraped (setEdgeCollect): labelled prom-client updates are a visible share
// of a proxied request's CPU time.
import { Counter, Gauge } from 'prom-client';
import { edgeMetrics, limiterMetrics, registry, setEdgeCollect } from '@cds/metrics';
import { PROXY_LIMITS } from '../admission/proxy-limiter';
import { CONNECTION_REFUSALS } from '../connections/connection-gate';
import type { DatabaseReadPurpose, EdgeObserver } from './edge-observer';

export const CONTROL_PLANE_METRIC = 'cds_edge_control_plane_reachable';
export const CONNECTIONS_REFUSED_METRIC = 'cds_edge_connections_refused_total';
export const DATABASE_QUERIES_METRIC = 'cds_edge_database_queries_total';
export const CHECK_REQUESTS_METRIC = 'cds_edge_check_requests_total';

const DATABASE_READ_PURPOSES: DatabaseReadPurpose[] = ['route', 'certificate', 'key', 'challenge', 'feed', 'names'];

/** Index 0: a cut connection (no status), then 1xx..5xx. */
const STATUS_CLASSES = ['cut', '1xx', '2xx', '3xx', '4xx', '5xx'] as const;

function statusClassIndex(status: number): number {
  return status >= 100 && status < 600 ? Math.floor(status / 100) : 0;
}

/** Unknown hostnames have no application: their requests count under `-`. */
const NO_APPLICATION = '-';
const SEPARATOR = '\u0000';

const LOOKUP_KEYS = {
  route: [`route${SEPARATOR}hit`, `route${SEPARATOR}miss`],
  certificate: [`certificate${SEPARATOR}hit`, `certificate${SEPARATOR}miss`],
  assertion: [`assertion${SEPARATOR}hit`, `assertion${SEPARATOR}miss`],
} as const;

let reachableGauge: Gauge | undefined;
let refusedCounter: Counter<'reason'> | undefined;
let queriesCounter: Counter<'purpose'> | undefined;
let checkRequestsCounter: Counter<'outcome'> | undefined;

export function edgeMetricsObserver(): EdgeObserver {
  const m = edgeMetrics();
  const limiter = limiterMetrics();
  // One registration per process, however many edges a test starts.
  const reachable = (reachableGauge ??= new Gauge({ name: CONTROL_PLANE_METRIC, help: '1 while the edge reaches its database, 0 while it serves from cache alone.', registers: [registry] }));
  reachable.set(1);
  const refused = (refusedCounter ??= new Counter({
    name: CONNECTIONS_REFUSED_METRIC,
    help: 'Client connections closed before being served: EDGE_MAX_CONNECTIONS or EDGE_MAX_CONNECTIONS_PER_CLIENT reached, or (PROXY protocol) an untrusted peer or no valid header.',
    labelNames: ['reason'] as const,
    registers: [registry],
  }));
  for (const reason of Object.values(CONNECTION_REFUSALS)) refused.inc({ reason }, 0);
  // Reads are few (they follow changes and new names, not traffic): counted directly.
  const queries = (queriesCounter ??= new Counter({
    name: DATABASE_QUERIES_METRIC,
    help: 'Database reads by the edge, by purpose (route, certificate, key, challenge, feed, names).',
    labelNames: ['purpose'] as const,
    registers: [registry],
  }));
  for (const purpose of DATABASE_READ_PURPOSES) queries.inc({ purpose }, 0);
  // At most one per pending_dns domain per 10 s (ACME_DNS_ZONE): counted directly.
  const checkRequests = (checkRequestsCounter ??= new Counter({
    name: CHECK_REQUESTS_METRIC,
    help: 'Checks of pending_dns domains the edge asked for when a request reached them (ACME_DNS_ZONE), by outcome (published, failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }));
  for (const outcome of ['published', 'failed']) checkRequests.inc({ outcome }, 0);
  for (const cache of ['route', 'certificate', 'assertion']) for (const result of ['hit', 'miss']) m.cacheLookups.inc({ cache, result }, 0);
  // Rejections by each proxied-request limit show at zero before the first one.
  for (const { name } of Object.values(PROXY_LIMITS)) limiter.rejections.inc({ server: 'edge', limiter: name }, 0);

  /** Per application: requests by status class index, then response bytes (last slot). */
  let tallies = new Map<string, number[]>();
  let lookups = new Map<string, number>();
  setEdgeCollect(() => {
    const [t, l] = [tallies, lookups];
    tallies = new Map();
    lookups = new Map();
    for (const [application, counts] of t) {
      STATUS_CLASSES.forEach((cls, i) => {
        if (counts[i]! > 0) m.requests.inc({ application, status_class: cls }, counts[i]);
      });
      if (counts[STATUS_CLASSES.length]! > 0) m.responseBytes.inc({ application }, counts[STATUS_CLASSES.length]);
    }
    for (const [key, n] of l) {
      const [cache, result] = key.split(SEPARATOR) as [string, string];
      m.cacheLookups.inc({ cache, result }, n);
    }
  });

  return {
    answered(slug, status, sent, seconds) {
      const application = slug ?? NO_APPLICATION;
      const index = statusClassIndex(status);
      let counts = tallies.get(application);
      if (!counts) tallies.set(application, (counts = new Array<number>(STATUS_CLASSES.length + 1).fill(0)));
      counts[index]! += 1;
      counts[STATUS_CLASSES.length]! += sent;
      m.duration.observe(STATUS_CLASSES[index]!, seconds);
    },
    cacheLookup(cache, hit) {
      const key = LOOKUP_KEYS[cache][hit ? 0 : 1];
      lookups.set(key, (lookups.get(key) ?? 0) + 1);
    },
    limited(limit) {
      limiter.rejections.inc({ server: 'edge', limiter: limit });
    },
    controlPlane(state) {
      reachable.set(state.reachable ? 1 : 0);
    },
    connectionRefused(reason) {
      refused.inc({ reason });
    },
    databaseRead(purpose) {
      queries.inc({ purpose });
    },
    checkRequested(published) {
      checkRequests.inc({ outcome: published ? 'published' : 'failed' });
    },
  };
}
