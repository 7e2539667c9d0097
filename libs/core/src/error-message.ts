/**
 * The text of anything thrown, for logs and messages. An AggregateError (what
 * a connection refused on both of a name's addresses throws) has an empty
 * message of its own: its errors' messages are given instead.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(errorMessage).join('; ');
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
