/**
 * Thrown by the value parsers. The message is the expectation ("must be …"),
 * so the loader can prefix it with the variable's name.
 */
export class InvalidValueError extends Error {
  override readonly name = 'InvalidValueError';
}
