import type { Request, Response, Router } from 'express';
import { expressPath, jsonBody, requestBody, requestParts, type RouteInput, type RouteSpec } from '@cds/http';

/** A route and its spec: the spec is the validator here and the OpenAPI source elsewhere. */
export interface Route {
  spec: RouteSpec;
  /** Answers a request that matched the spec's method and path. */
  handle: (req: Request, res: Response) => Promise<void>;
}

/**
 * A route whose handler gets the request validated against its spec: path
 * parameters, query, headers, then body (the first part that fails answers
 * validation_error), each typed by its schema.
 */
export function route<S extends RouteSpec>(spec: S, handler: (req: Request, res: Response, input: RouteInput<S>) => Promise<void>): Route {
  return {
    spec,
    handle: async (req, res) => {
      const parts = requestParts(spec, req);
      await handler(req, res, { ...parts, body: requestBody(spec, req) });
    },
  };
}

/** Mounts routes on a router that is itself mounted at `mountedAt` (whose prefix express strips from the URL). */
export function mountRoutes(router: Router, routes: readonly Route[], mountedAt: string): void {
  for (const { spec, handle } of routes) {
    if (!spec.path.startsWith(mountedAt)) throw new Error(`${spec.path} is not under ${mountedAt}`);
    const local = spec.path.slice(mountedAt.length) || '/';
    // Only routes that take a body read one; elsewhere a body is ignored, unread.
    const body = spec.body ? jsonBody() : [];
    router[spec.method](expressPath(local), ...body, handle);
  }
}
