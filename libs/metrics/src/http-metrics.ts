import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { httpMetrics, limiterMetrics } from './definitions';
import { routeMatcher } from './route-template';

export const UNMATCHED_ROUTE = 'unmatched';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface HttpMetricsOptions {
  /** The `server` label: which service answered (api). */
  readonly server: string;
  /** Every route template the app serves (OpenAPI style); other paths are labelled `unmatched`. */
  readonly routes: readonly string[];
}

/** Counts and times every answer by route template and status; mount it first. */
export function httpMetricsMiddleware(opts: HttpMetricsOptions): RequestHandler {
  const match = routeMatcher(opts.routes);
  const { requests, duration } = httpMetrics();
  return (req, res, next) => {
    const stop = duration.startTimer();
    // Resolved now: express rewrites req.url while routing through mounted routers.
    const route = match(req.path) ?? UNMATCHED_ROUTE;
    const method = METHODS.has(req.method) ? req.method : 'OTHER';
    res.once('finish', () => {
      const labels = { server: opts.server, method, route, status: String(res.statusCode) };
      requests.inc(labels);
      stop(labels);
    });
    next();
  };
}

/** Error middleware placed before the error handler: counts `rate_limited` errors by limiter and passes them on. */
export function limiterRejectionTap(server: string, limiterOf: (req: Request) => string): ErrorRequestHandler {
  const { rejections } = limiterMetrics();
  return (err: unknown, req, _res, next) => {
    if (isRateLimited(err)) rejections.inc({ server, limiter: limiterOf(req) });
    next(err);
  };
}

function isRateLimited(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'rate_limited';
}
