// What the edge reports as it serves: forwarded traffic to the traffic counter,
// answers, cache lookups, limits, control-plane changes and refused
// connections to the metrics.
import type { ConnectionRefusal } from '../connections/connection-gate';
import type { ControlPlaneState } from './control-plane';

/** Where forwarded requests are counted (the traffic counter). */
export interface TrafficSink {
  record(applicationId: string, responseBytes: number): void;
}

/** Why the edge read its database: a route, certificate, signing key or ACME token lookup, the change feed, or a page of live names. */
export type DatabaseReadPurpose = 'route' | 'certificate' | 'key' | 'challenge' | 'feed' | 'names';

/** What the edge reports per answered request (metrics). */
export interface EdgeObserver {
  answered(slug: string | null, status: number, bytes: number, seconds: number): void;
  cacheLookup(cache: 'route' | 'certificate' | 'assertion', hit: boolean): void;
  limited(limit: string): void;
  controlPlane(state: ControlPlaneState): void;
  /** A connection closed before its server saw it: the cap, or PROXY protocol. */
  connectionRefused(reason: ConnectionRefusal): void;
  /** One database read (optional: observers written before it count nothing). */
  databaseRead?(purpose: DatabaseReadPurpose): void;
  /** One ACME HTTP-01 answer on the plain listener, and the seconds from the request to it (optional, like databaseRead). */
  challengeAnswered?(status: number, seconds: number): void;
  /** One `domain.check.requested` the edge published for a pending_dns domain, or failed to (optional, like databaseRead). */
  checkRequested?(published: boolean): void;
}

/** The observer of an edge started without one. */
export const silentObserver: EdgeObserver = { answered() {}, cacheLookup() {}, limited() {}, controlPlane() {}, connectionRefused() {} };
