/** `Retry-After` as whole seconds (the API sends an integer); null when absent or not a number of seconds. */
export function retryAfterSeconds(header: string | null): number | null {
  if (header === null || !/^\s*\d+\s*$/.test(header)) return null;
  return Number(header);
}
