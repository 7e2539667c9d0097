export const EXIT_CODES = { ok: 0, failed: 1, usage: 2 } as const;

/** The command line was wrong or incomplete: exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The operator API refused the request (its error envelope) or could not be reached: exit 1. */
export class RequestFailedError extends Error {
  override readonly name = 'RequestFailedError';

  constructor(
    readonly code: string,
    message: string,
    readonly status: number | null,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
