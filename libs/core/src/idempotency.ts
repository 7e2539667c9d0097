// Request hash for Idempotency-Key: the same JSON body hashes the same whatever its key order.
import { createHash } from 'node:crypto';

function write(value: unknown): string {
  if (value !== null && typeof value === 'object') {
    const withToJson = value as { toJSON?: () => unknown };
    if (typeof withToJson.toJSON === 'function') return write(withToJson.toJSON());
    if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : write(item))).join(',')}]`;
    const record = value as Record<string, unknown>;
    // Written by hand: an object would put integer-like keys first whatever order they were added in.
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${write(record[key])}`);
    return `{${members.join(',')}}`;
  }
  // undefined (and functions) have no JSON form; as JSON.stringify does inside arrays, write null.
  return JSON.stringify(value) ?? 'null';
}

/** JSON with object keys sorted recursively (by UTF-16 code units) and no whitespace. */
export function canonicalJson(value: unknown): string {
  return write(value);
}

/** SHA-256 hex of the canonical JSON of a request body. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}
