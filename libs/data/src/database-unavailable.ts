// Whether a failure means the database cannot be reached right now (stopped,
// restarting, recovering, the connection cut) rather than that the request or
// the code is wrong. The API answers those with 503 service_unavailable and
// Retry-After instead of a 500 (a client may retry the same request), and the
// checker tries a newly issued certificate's write again only for these.

/** Socket-level codes of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL SQLSTATEs of a server that is going away or not there yet:
 * class 08 (connection exception), 57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now (starting up, in recovery),
 * 53300 too_many_connections.
 */
const SQLSTATES = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03', '53300']);

/** What node-postgres says when the connection ends under it or cannot be had in time. */
const MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error and is not queryable/i,
  /the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/i,
];

interface Inspectable {
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  // The driver's error may be wrapped (TypeORM's QueryFailedError.driverError, an Error's cause).
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object' && !seen.has(current); depth++) {
    seen.add(current);
    const e = current as Inspectable;
    if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || SQLSTATES.has(e.code))) return true;
    if (typeof e.message === 'string' && MESSAGES.some((m) => m.test(e.message as string))) return true;
    current = e.driverError ?? e.cause;
  }
  return false;
}
