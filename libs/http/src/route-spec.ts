import type { Request } from 'express';
import type Joi from 'joi';
import { parseInput, parseOptionalBody } from './validate';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type SecurityScheme = 'ApplicationKey' | 'OperatorToken' | 'none';

export interface ResponseSpec {
  description: string;
  schema?: Joi.Schema;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface PathParamSpec {
  description: string;
  format?: 'uuid';
}

/** One endpoint, described once: the router validates with it and the OpenAPI document is generated from it. */
export interface RouteSpec {
  method: HttpMethod;
  /** OpenAPI style path, e.g. /v1/domains/{domain_id}. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: SecurityScheme;
  pathParams?: Record<string, PathParamSpec>;
  query?: Joi.ObjectSchema;
  headers?: Joi.ObjectSchema;
  body?: Joi.ObjectSchema;
  /** Without it the body may be left out (the handler gets undefined). */
  bodyRequired?: true;
  responses: Record<number, ResponseSpec>;
  /** False for endpoints of the contract that this version does not serve yet. */
  served?: boolean;
  deprecated?: boolean;
}

/**
 * What a request to the route of spec `S` is once validated: its path
 * parameters by name, and its query, headers and body as the spec's schemas
 * type them (`Joi.object<T, true>`), defaults applied. A part the spec has no
 * schema for is empty; a body not required may be undefined.
 */
export interface RouteInput<S extends RouteSpec> {
  params: S extends { pathParams: Record<infer P, PathParamSpec> } ? Record<P, string> : Record<string, never>;
  query: S extends { query: Joi.ObjectSchema<infer Q> } ? Q : Record<string, never>;
  headers: S extends { headers: Joi.ObjectSchema<infer H> } ? H : Record<string, never>;
  body: S extends { body: Joi.ObjectSchema<infer B> } ? (S extends { bodyRequired: true } ? B : B | undefined) : undefined;
}

/** Express 5 types path params as string | string[]; ours are single segments. */
function pathParam(req: Request, name: string): string {
  const value = req.params[name];
  return Array.isArray(value) ? value.join('/') : (value ?? '');
}

// The two functions below are where express's untyped request becomes the
// spec's types. Each part is checked against the schema that types it
// (parseInput answers a T for a Joi.ObjectSchema<T>), and the parameters are
// the names the spec declares; TypeScript cannot follow the conditional types
// of RouteInput through a generic spec, so each result is asserted here, and
// nowhere else.

/** The path parameters, query and headers of a request: the query validated, then the headers (a failure throws validation_error). */
export function requestParts<S extends RouteSpec>(spec: S, req: Request): Omit<RouteInput<S>, 'body'> {
  const parts = {
    params: Object.fromEntries(Object.keys(spec.pathParams ?? {}).map((name) => [name, pathParam(req, name)])),
    query: spec.query ? parseInput(spec.query, req.query, 'query') : {},
    headers: spec.headers ? parseInput(spec.headers, req.headers, 'header') : {},
  };
  return parts as Omit<RouteInput<S>, 'body'>;
}

/** The request's body, validated (a failure throws validation_error); undefined when the route reads none, or may go without and got none. */
export function requestBody<S extends RouteSpec>(spec: S, req: Request): RouteInput<S>['body'] {
  const body: unknown = !spec.body ? undefined
    : spec.bodyRequired ? parseInput(spec.body.required(), req.body, 'body')
    : parseOptionalBody(spec.body, req.body);
  return body as RouteInput<S>['body'];
}

/** `/v1/domains/{domain_id}` → `/v1/domains/:domain_id` for express. */
export function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([a-z_]+)\}/g, ':$1');
}
