// Whether a request over TLS is forwarded: SNI = Host, a ready domain with an
// origin, the application's limits, then the assertion the origin gets. Each
// step answers without a promise when its cache has what it needs (the common
// case) and waits only when it has not.
import type { TLSSocket } from 'node:tls';
import { sniName } from '../caches/certificate-store';
import type { RefreshingCache } from '../caches/refreshing-cache';
import type { DomainRoute, Route } from '../caches/route-table';
import { isHttp2, requestAuthority, type EdgeRequest } from '../listeners/client-messages';
import { hostName, PAGES, type Page } from '../listeners/edge-pages';
import type { EdgeObserver } from '../observing/edge-observer';
import type { AssertionSigner } from './assertion-signer';
import { CHECK_REQUESTED_RETRY_AFTER_SECONDS, type CheckRequests } from './check-requests';
import type { ProxyLimiter, LimitVerdict } from './proxy-limiter';

const CHECK_REQUESTED_HEADERS: Readonly<Record<string, number>> = Object.freeze({ 'retry-after': CHECK_REQUESTED_RETRY_AFTER_SECONDS });

/** Forward to the route's origin with this assertion, redirect to this hostname, or answer this page. */
export type Admission =
  | { route: DomainRoute; assertion: string }
  | { redirect: string; slug: string }
  | { page: Page; slug: string | null; headers?: Record<string, string | number> };

/** The page a route gets instead of being forwarded; null when it can be forwarded. */
export function pageOf(route: Route): Page | null {
  if (route.kind === 'unknown') return PAGES.unknownHostname;
  if (route.application.status === 'suspended') return PAGES.suspended;
  if (route.status === 'pending_dns') return PAGES.pendingDns;
  if (route.status !== 'ready') return PAGES.attentionRequired;
  if (route.originUrl === null) return PAGES.noOrigin;
  return null;
}

export interface AdmissionChainDeps {
  routes: RefreshingCache<Route>;
  limiter: ProxyLimiter;
  signer: AssertionSigner;
  observer: EdgeObserver;
  /** With ACME_DNS_ZONE: checks asked for when a request reaches a pending_dns domain (DECISIONS §13). */
  checkRequests?: CheckRequests | null;
}

export class AdmissionChain {
  constructor(private readonly deps: AdmissionChainDeps) {}

  /** The route, from the cache when it can be used as is. Throws only when the database is away and the name was never seen. */
  route(name: string): Promise<Route> | Route {
    const cached = this.deps.routes.peek(name);
    this.deps.observer.cacheLookup('route', cached !== undefined);
    return cached ?? this.deps.routes.get(name);
  }

  /** The checks shared by requests and upgrades; a page when refused. */
  admit(req: EdgeRequest): Admission | Promise<Admission> {
    const servername = (req.socket as TLSSocket).servername;
    const sni = typeof servername === 'string' ? sniName(servername) : null;
    const host = hostName(requestAuthority(req));
    if (host === null) return { page: PAGES.badRequest, slug: null };
    if (host !== sni) return { page: PAGES.misdirected, slug: null };
    // An HTTP/2 request may carry a Host beside its :authority: it must name the same site.
    if (isHttp2(req) && req.headers.host !== undefined && hostName(req.headers.host) !== sni) return { page: PAGES.misdirected, slug: null };
    const route = this.route(sni);
    return route instanceof Promise ? route.then((r) => this.admitRoute(r)) : this.admitRoute(route);
  }

  /**
   * A request reached this edge for a pending_dns domain: with ACME_DNS_ZONE its routing may have moved
   * (DECISIONS §13), so a check is asked for and the answer says to come back in 5 s. Undefined (the
   * page's usual headers) otherwise.
   */
  pendingDns(route: DomainRoute): Readonly<Record<string, number>> | undefined {
    const requests = this.deps.checkRequests;
    if (!requests) return undefined;
    requests.request(route);
    return CHECK_REQUESTED_HEADERS;
  }

  private admitRoute(route: Route): Admission | Promise<Admission> {
    const page = pageOf(route);
    if (route.kind !== 'domain') return { page: page ?? PAGES.unknownHostname, slug: null };
    const served = page === null || page === PAGES.noOrigin;
    if (served && route.redirectTo !== null) return this.admitRedirect(route, route.redirectTo, page);
    return this.admitServed(route, page);
  }

  /**
   * A ready domain with `redirect_to` (DECISIONS §12): a redirect once its target
   * is ready too (no origin needed, no limit counted: nothing is proxied), served
   * as any domain while the target is not, and a 503 saying so once the target is
   * gone (deleted, or its hostname is another application's now).
   */
  private admitRedirect(route: DomainRoute, target: string, page: Page | null): Admission | Promise<Admission> {
    const decide = (found: Route): Admission | Promise<Admission> => {
      const slug = route.application.slug;
      if (found.kind !== 'domain' || found.application.id !== route.application.id) return { page: PAGES.redirectTargetGone, slug };
      return found.status === 'ready' ? { redirect: target, slug } : this.admitServed(route, page);
    };
    const found = this.route(target);
    return found instanceof Promise ? found.then(decide) : decide(found);
  }

  private admitServed(route: DomainRoute, page: Page | null): Admission | Promise<Admission> {
    if (page === PAGES.pendingDns) return { page, slug: route.application.slug, headers: this.pendingDns(route) };
    if (page) return { page, slug: route.application.slug };
    const verdict = this.deps.limiter.check(route.application);
    return 'allowed' in verdict ? this.admitLimited(route, verdict) : verdict.then((v) => this.admitLimited(route, v));
  }

  private admitLimited(route: DomainRoute, verdict: LimitVerdict): Admission | Promise<Admission> {
    if (!verdict.allowed) {
      this.deps.observer.limited(verdict.limit ?? 'proxied_requests');
      return { page: PAGES.rateLimited, slug: route.application.slug, headers: { 'retry-after': verdict.retryAfter } };
    }
    const assertion = this.deps.signer.peek(route);
    this.deps.observer.cacheLookup('assertion', assertion !== undefined);
    return assertion !== undefined ? { route, assertion } : this.deps.signer.assertionFor(route).then((signed) => ({ route, assertion: signed }));
  }
}
