export const REDACTED = '[redacted]';

/** Keys whose values are never logged, at any depth. */
export const SECRET_KEY = /authorization|token|secret|password|api[_-]?key|cookie/i;

const SECRET_TEXT: readonly [RegExp, string][] = [
  [/(?<![A-Za-z0-9])cd_[A-Za-z0-9]{8,}/g, `cd_${REDACTED}`],
  [/whsec_[A-Za-z0-9_-]+/g, `whsec_${REDACTED}`],
  [/\b(Bearer)\s+[^\s,;"']+/gi, `$1 ${REDACTED}`],
];

const MAX_DEPTH = 10;

/** Masks API keys (`cd_…`), webhook secrets (`whsec_…`) and bearer tokens inside free text. */
export function maskSecrets(text: string): string {
  return SECRET_TEXT.reduce((masked, [pattern, replacement]) => masked.replace(pattern, replacement), text);
}

/**
 * A copy of value fit for a log line: values under secret-looking keys replaced,
 * secrets inside strings masked, Errors made plain, binary data summarized.
 * The input is never modified.
 */
export function redact(value: unknown): unknown {
  return redactValue(value, new WeakSet(), 0);
}

/** The value to log under key. */
export function redactField(key: string, value: unknown): unknown {
  return SECRET_KEY.test(key) ? REDACTED : redact(value);
}

function redactValue(value: unknown, ancestors: WeakSet<object>, depth: number): unknown {
  if (typeof value === 'string') return maskSecrets(value);
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date) return value;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[binary ${value.byteLength} bytes]`;
  if (ancestors.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => redactValue(item, ancestors, depth + 1));
    const source = value instanceof Error ? plainError(value) : value;
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(source)) {
      copy[key] = SECRET_KEY.test(key) ? REDACTED : redactValue(child, ancestors, depth + 1);
    }
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

/** name, message, stack and cause are not enumerable on Errors; own fields such as `code` are. */
function plainError(error: Error): Record<string, unknown> {
  const cause = error.cause === undefined ? {} : { cause: error.cause };
  return { ...error, name: error.name, message: error.message, stack: error.stack, ...cause };
}
