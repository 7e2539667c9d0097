// The closed list of error codes of the contract, each with its HTTP status.
// Domain code throws AppError; one express handler (libs/http) writes the envelope.

export const ERROR_STATUS = {
  // 401 / 403
  unauthorized: 401,
  forbidden: 403,
  application_suspended: 403,
  // 404
  not_found: 404,
  domain_not_found: 404,
  webhook_not_found: 404,
  delivery_not_found: 404,
  application_not_found: 404,
  origin_not_found: 404,
  credential_not_found: 404,
  assertion_key_not_found: 404,
  // 409
  hostname_already_claimed: 409,
  domain_limit_reached: 409,
  invalid_status_transition: 409,
  idempotency_request_in_progress: 409,
  backup_unavailable: 409,
  webhook_limit_reached: 409,
  application_exists: 409,
  application_has_live_domains: 409,
  credential_limit_reached: 409,
  origin_active: 409,
  // 413
  payload_too_large: 413,
  // 422
  validation_error: 422,
  apex_not_supported: 422,
  wildcard_not_supported: 422,
  ip_literal_not_supported: 422,
  invalid_hostname: 422,
  invalid_label: 422,
  hostname_too_long: 422,
  empty_hostname: 422,
  invalid_reference: 422,
  idempotency_key_reused: 422,
  invalid_webhook_url: 422,
  confirmation_required: 422,
  origin_verification_failed: 422,
  // 429
  rate_limited: 429,
  // 5xx
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

/** The contract's error envelope: what an AppError is answered as. */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details: ErrorDetails };
}

export function errorBody(err: AppError): ErrorEnvelope {
  return { error: { code: err.code, message: err.message, details: err.details } };
}

/** One entry of `details.errors` in a `validation_error`. */
export interface ValidationIssue {
  location: 'body' | 'query' | 'header' | 'path';
  field: string;
  message: string;
  type: string;
}

export function validationError(errors: ValidationIssue[], message = 'The request does not match the schema.'): AppError {
  return new AppError('validation_error', message, { errors });
}

export function rateLimited(retryAfterSeconds: number, message = 'Too many requests.', details: ErrorDetails = {}): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError('rate_limited', message, details, { 'Retry-After': String(seconds) });
}
