import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, errorBody, validationError, type ErrorCode } from '@cds/core';
import { isDatabaseUnavailable } from '@cds/data';
import type { Logger } from '@cds/logging';

/** Seconds a client waits before retrying while the database cannot be reached (a restart takes a few). */
export const DATABASE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

// A path id is "not a uuid" when it is not even valid percent-encoding; the
// collection before it names the resource's not-found code.
const COLLECTION_NOT_FOUND = new Map<string, ErrorCode>([
  ['domains', 'domain_not_found'],
  ['webhooks', 'webhook_not_found'],
  ['deliveries', 'delivery_not_found'],
  ['applications', 'application_not_found'],
  ['credentials', 'credential_not_found'],
  ['origins', 'origin_not_found'],
  ['assertion-keys', 'assertion_key_not_found'],
]);

function undecodablePathError(path: string): AppError {
  const segments = path.split('?')[0]?.split('/') ?? [];
  const bad = segments.findIndex((s) => {
    try {
      decodeURIComponent(s);
      return false;
    } catch {
      return true;
    }
  });
  const code = COLLECTION_NOT_FOUND.get(segments[bad - 1] ?? '') ?? 'not_found';
  return new AppError(code, code === 'not_found' ? 'No such endpoint.' : 'No such resource: its id is not valid percent-encoding.');
}

/**
 * Turns body-parser and router failures into contract errors, and a database
 * that cannot be reached into 503 service_unavailable with Retry-After;
 * anything else unexpected becomes a logged 500.
 */
function toAppError(err: unknown, path: string): AppError | null {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) {
    return new AppError('service_unavailable', 'The database cannot be reached right now; retry the request shortly.', {}, {
      'Retry-After': String(DATABASE_UNAVAILABLE_RETRY_AFTER_SECONDS),
    });
  }
  // The router could not percent-decode a path parameter.
  if (err instanceof URIError && (err as { status?: unknown }).status === 400) return undecodablePathError(path);
  const e = err as { type?: unknown; status?: unknown; expose?: unknown } | null;
  if (!e || typeof e !== 'object' || typeof e.status !== 'number' || e.status < 400 || e.status >= 500) return null;
  if (e.type === 'entity.too.large') return new AppError('payload_too_large', 'The request body is larger than 64 KiB.');
  if (e.type === 'entity.parse.failed') {
    return validationError([{ location: 'body', field: '', message: 'The body is not valid JSON.', type: 'json.parse' }], 'The body is not valid JSON.');
  }
  // Other client errors of body-parser (charset, content encoding, broken gzip, aborted upload): the body could not be read.
  if (typeof e.type === 'string' || e.expose === true) {
    const type = typeof e.type === 'string' ? e.type : 'body.unreadable';
    return validationError([{ location: 'body', field: '', message: 'The body could not be read as UTF-8 JSON.', type }], 'The body could not be read as JSON.');
  }
  return null;
}

/** Every line it logs names the request as `request_id`, the id the answer's X-Request-Id gave the client. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err, req.originalUrl);
    if (res.headersSent) {
      logger.error('error after headers were sent', { request_id: req.requestId, error: String(err) });
      res.destroy();
      return;
    }
    if (appError) {
      if (appError.code === 'service_unavailable' && !(err instanceof AppError)) {
        logger.warn('database unavailable', { request_id: req.requestId, error: err instanceof Error ? err.message : String(err) });
      }
      for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
      res.status(appError.status).json(errorBody(appError));
      return;
    }
    logger.error('unhandled error', { request_id: req.requestId, error: err instanceof Error ? err.stack : String(err) });
    const internal = new AppError('internal_error', `Internal error; quote request id ${req.requestId ?? 'unknown'} when reporting it.`);
    res.status(500).json(errorBody(internal));
  };
}

/** Unknown path under a mounted API. */
export function notFoundHandler(): RequestHandler {
  return (_req, _res, next) => next(new AppError('not_found', 'No such endpoint.'));
}
