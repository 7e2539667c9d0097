import type Joi from 'joi';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type SecurityScheme = 'ApplicationKey' | 'OperatorToken' | 'none';

export interface ResponseSpec {
  description: string;
  schema?: Joi.Schema;
  contentType?: string;
  headers?: Record<string, string>;
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
  pathParams?: Record<string, { description: string; format?: 'uuid' }>;
  query?: Joi.ObjectSchema;
  headers?: Joi.ObjectSchema;
  body?: Joi.Schema;
  bodyRequired?: boolean;
  responses: Record<number, ResponseSpec>;
  /** False for endpoints of the contract that this version does not serve yet. */
  served?: boolean;
  deprecated?: boolean;
}

/** `/v1/domains/{domain_id}` → `/v1/domains/:domain_id` for express. */
export function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([a-z_]+)\}/g, ':$1');
}
