import { InvalidValueError } from './invalid-value';

/** Parsers from an environment string to a typed value; they throw InvalidValueError("must be …"). */

export function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port <= 65_535)) throw new InvalidValueError('must be a port number');
  return port;
}

export function parseBoolean(text: string): boolean {
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw new InvalidValueError('must be true or false');
}

export function integerParser(min: number, max?: number): (text: string) => number {
  return (text) => {
    const value = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
    if (max !== undefined && !(value >= min && value <= max)) throw new InvalidValueError(`must be a whole number from ${min} to ${max}`);
    if (!(value >= min)) throw new InvalidValueError(`must be a whole number of at least ${min}`);
    return value;
  };
}

export function oneOfParser<T extends string>(allowed: readonly T[]): (text: string) => T {
  return (text) => {
    const found = allowed.find((value) => value === text.toLowerCase());
    if (found === undefined) throw new InvalidValueError(`must be one of ${allowed.join(', ')}`);
    return found;
  };
}

export function urlParser(protocols: readonly string[]): (text: string) => string {
  const schemes = protocols.map((protocol) => `${protocol}//`).join(' or ');
  return (text) => {
    const url = URL.canParse(text) ? new URL(text) : null;
    if (!url || !protocols.includes(url.protocol) || url.host === '') {
      throw new InvalidValueError(`must be a ${schemes} URL`);
    }
    return text;
  };
}

const EMAIL = /^[^\s@<>]+@[^\s@<>]+$/;

export function parseEmail(text: string): string {
  if (!EMAIL.test(text)) throw new InvalidValueError('must be an e-mail address');
  return text;
}

/** `a@b.c` or `Name <a@b.c>`. */
export function parseMailbox(text: string): string {
  const address = /^[^<>]*<([^<>]+)>$/.exec(text)?.[1] ?? text;
  if (!EMAIL.test(address)) throw new InvalidValueError('must be an e-mail address or "Name <address>"');
  return text;
}

/** Printable ASCII without whitespace, `minLength` to `maxLength` characters (tokens and key ids; file paths are checked elsewhere). */
export function tokenParser(maxLength: number, minLength = 1): (text: string) => string {
  return (text) => {
    if (text.length < minLength || text.length > maxLength || !/^[\x21-\x7e]+$/.test(text)) {
      throw new InvalidValueError(`must be ${minLength} to ${maxLength} printable characters without spaces`);
    }
    return text;
  };
}

/** A path to a file; its existence is checked by whoever reads it. */
export function parsePath(text: string): string {
  return text;
}

/** 32 bytes in standard base64. */
export function parseEncryptionKey(text: string): Buffer {
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : null;
  if (!key || key.length !== 32) throw new InvalidValueError('must be exactly 32 bytes encoded as base64');
  return key;
}

/** A comma list of distinct keys, each 32 bytes in standard base64; at least one. */
export function parseEncryptionKeyList(text: string): readonly Buffer[] {
  const keys = text.split(',').map((item) => item.trim());
  let parsed: Buffer[];
  try {
    parsed = keys.map(parseEncryptionKey);
  } catch {
    throw new InvalidValueError('must be a comma list of keys, each exactly 32 bytes encoded as base64');
  }
  if (new Set(keys).size !== keys.length) throw new InvalidValueError('must not list the same key twice');
  return parsed;
}

/** base64url text whose decoded length is at least 32 bytes; kept as text (the HMAC key is the text). */
export function parseAssertionKey(text: string): string {
  const ok = /^[A-Za-z0-9_-]+={0,2}$/.test(text) && Buffer.from(text, 'base64url').length >= 32;
  if (!ok) throw new InvalidValueError('must be base64url text of at least 32 bytes');
  return text;
}
