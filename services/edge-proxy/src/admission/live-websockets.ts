// WebSockets outlive the request that admitted them: every second each one's
// domain is looked up again (the route cache, which follows changes within
// seconds), and one whose domain left `ready`, was deleted, or whose
// application was suspended is closed (DECISIONS §5: within 5 seconds).
import type { Duplex } from 'node:stream';
import type { DomainRoute, Route } from '../caches/route-table';
import { pageOf } from './admission';

const SWEEP_INTERVAL_MS = 1_000;

export class LiveWebSockets {
  private readonly open = new Map<Duplex, { hostname: string; domainId: string }>();
  private readonly timer: NodeJS.Timeout;
  private sweeping = false;

  /** `route`: the route of a name as admission sees it (cached, or read). */
  constructor(private readonly route: (name: string) => Promise<Route> | Route) {
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** Watches a joined WebSocket of `route`'s domain until it closes. */
  add(socket: Duplex, route: DomainRoute): void {
    this.open.set(socket, { hostname: route.hostname, domainId: route.domainId });
    socket.once('close', () => this.open.delete(socket));
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sweep(): Promise<void> {
    if (this.sweeping || this.open.size === 0) return;
    this.sweeping = true;
    try {
      for (const [socket, { hostname, domainId }] of this.open) {
        let route: Route;
        try {
          route = await this.route(hostname);
        } catch {
          // The database is away and the name was never cached: serving from cache goes on.
          continue;
        }
        // Another domain under the same name (deleted, then created again) is not the one admitted.
        if (route.kind !== 'domain' || route.domainId !== domainId || pageOf(route) !== null) socket.destroy();
      }
    } finally {
      this.sweeping = false;
    }
  }
}
