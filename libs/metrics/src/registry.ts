import { collectDefaultMetrics, Registry } from 'prom-client';

/** The one registry of this process: the all-in-one serves every service's metrics from it. */
export const registry = new Registry();

let processMetricsOn = false;

/** Node's process metrics (CPU, memory, event loop, GC); idempotent, since prom-client refuses a second registration. */
export function enableProcessMetrics(): void {
  if (processMetricsOn) return;
  processMetricsOn = true;
  collectDefaultMetrics({ register: registry });
}

/** The text the `/metrics` endpoint serves. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export const processMetricsSource: MetricsSource = {
  get contentType() {
    return registry.contentType;
  },
  metrics: () => registry.metrics(),
};
