// What the edge reports as it serves: forwarded traffic to the traffic counter,
// answers, cache lookups, limits and control-plane changes to the metrics.
import type { ControlPlaneState } from './control-plane';

/** Where forwarded requests are counted (the traffic counter). */
export interface TrafficSink {
  record(applicationId: string, responseBytes: number): void;
}

/** What the edge reports per answered request (metrics). */
export interface EdgeObserver {
  answered(slug: string | null, status: number, bytes: number, seconds: number): void;
  cacheLookup(cache: 'route' | 'certificate' | 'assertion', hit: boolean): void;
  limited(limit: string): void;
  controlPlane(state: ControlPlaneState): void;
}

/** The observer of an edge started without one. */
export const silentObserver: EdgeObserver = { answered() {}, cacheLookup() {}, limited() {}, controlPlane() {} };
