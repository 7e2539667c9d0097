import type { Request, Response, Router } from 'express';
import { expressPath, jsonBody, parseInput, type RouteSpec } from '@cds/http';

export interface RouteInput {
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
}

export type RouteHandler = (req: Request, res: Response, input: RouteInput) => Promise<void>;

/** A route and its spec: the spec is the validator here and the OpenAPI source elsewhere. */
export interface Route {
  spec: RouteSpec;
  handler: RouteHandler;
}

/** Mounts routes on a router that is itself mounted at `mountedAt` (whose prefix express strips from the URL). */
export function mountRoutes(router: Router, routes: readonly Route[], mountedAt: string): void {
  for (const { spec, handler } of routes) {
    if (!spec.path.startsWith(mountedAt)) throw new Error(`${spec.path} is not under ${mountedAt}`);
    const local = spec.path.slice(mountedAt.length) || '/';
    // Only routes that take a body read one; elsewhere a body is ignored, unread.
    const body = spec.body ? jsonBody() : [];
    router[spec.method](expressPath(local), ...body, async (req: Request, res: Response) => {
      const query = spec.query ? parseInput<Record<string, unknown>>(spec.query, req.query, 'query') : {};
      const headers = spec.headers ? parseInput<Record<string, unknown>>(spec.headers, req.headers, 'header') : {};
      await handler(req, res, { query, headers });
    });
  }
}

/** Express 5 types path params as string | string[]; ours are single segments. */
export function pathParam(req: Request, name: string): string {
  const value = req.params[name];
  return Array.isArray(value) ? value.join('/') : (value ?? '');
}
