// The contract's error envelope, `{"error":{"code","message","details"}}`, as a thrown error.

/** A non-2xx answer from the API: its HTTP status and the envelope's code, message and details. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** Seconds from the answer's `Retry-After` header (429s), or null. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The ApiError for an answer; a body that is not the envelope (a proxy's page, say) gives code `unexpected_response`. */
export function apiErrorOf(status: number, bodyText: string, retryAfterSeconds: number | null): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  const error = isObject(parsed) ? parsed.error : undefined;
  if (isObject(error) && typeof error.code === 'string' && typeof error.message === 'string') {
    return new ApiError(status, error.code, error.message, isObject(error.details) ? error.details : {}, retryAfterSeconds);
  }
  return new ApiError(status, 'unexpected_response', `HTTP ${status}: ${bodyText.slice(0, 200)}`, {}, retryAfterSeconds);
}
