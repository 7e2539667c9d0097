import type Joi from 'joi';
import type { RouteSpec } from '@cds/http';
import { errorEnvelope } from '../shared/common.schema';
import { toJsonSchema } from './json-schema';

type JsonObject = Record<string, unknown>;

function schemaOf(joi: Joi.Schema): JsonObject {
  return toJsonSchema(joi);
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Query or header parameters from an object schema's keys. */
function parametersOf(schema: Joi.ObjectSchema | undefined, where: 'query' | 'header'): JsonObject[] {
  if (!schema) return [];
  const json = schemaOf(schema);
  const properties = Object.entries(isJsonObject(json.properties) ? json.properties : {}).filter((entry): entry is [string, JsonObject] => isJsonObject(entry[1]));
  const required = new Set(Array.isArray(json.required) ? json.required : []);
  return properties.map(([name, s]) => ({
    name: where === 'header' ? name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase()) : name,
    in: where,
    required: required.has(name),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }));
}

function operationOf(spec: RouteSpec): JsonObject {
  const pathParams = Object.entries(spec.pathParams ?? {}).map(([name, p]) => ({
    name, in: 'path', required: true, description: p.description, schema: p.format ? { type: 'string', format: p.format } : { type: 'string' },
  }));
  // Every route that reads a body can refuse it: over 64 KiB, or not JSON.
  const bodyErrors: RouteSpec['responses'] = spec.body
    ? { 413: { description: 'payload_too_large: body over 64 KiB', schema: errorEnvelope }, 422: { description: 'validation_error', schema: errorEnvelope } }
    : {};
  // Every authenticated route needs the database: while it cannot be reached the answer is 503 with Retry-After.
  const unavailable: RouteSpec['responses'] = spec.security === 'none' ? {} : { 503: { description: 'service_unavailable: the database cannot be reached right now; retry after Retry-After seconds', schema: errorEnvelope } };
  const responses = Object.fromEntries(
    Object.entries({ ...bodyErrors, ...unavailable, ...spec.responses }).map(([status, r]) => [
      status,
      {
        description: r.description,
        ...(r.schema ? { content: { [r.contentType ?? 'application/json']: { schema: schemaOf(r.schema) } } } : {}),
      },
    ]),
  );
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags,
    security: spec.security === 'none' ? [] : [{ [spec.security]: [] }],
    parameters: [...pathParams, ...parametersOf(spec.query, 'query'), ...parametersOf(spec.headers, 'header')],
    ...(spec.body ? { requestBody: { required: spec.bodyRequired ?? false, content: { 'application/json': { schema: schemaOf(spec.body) } } } } : {}),
    responses,
    ...(spec.deprecated ? { deprecated: true } : {}),
    ...(spec.served === false ? { 'x-not-yet-served': true } : {}),
  };
}

/** The OpenAPI 3.1 document, generated from the same specs the routes validate with. */
export function buildOpenApi(specs: readonly RouteSpec[], serverUrl: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const spec of specs) {
    paths[spec.path] = { ...(paths[spec.path] ?? {}), [spec.method]: operationOf(spec) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Custom Domain Service',
      version: '1.0.0',
      description: 'Application API (/v1), operator API (/operator/v1) and the deprecated legacy API (/domains).',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        ApplicationKey: { type: 'http', scheme: 'bearer', description: 'Application credential: Authorization: Bearer cd_…' },
        OperatorToken: { type: 'http', scheme: 'bearer', description: 'Operator token: Authorization: Bearer <token>' },
      },
    },
    paths,
  };
}
