// Application API keys (`cd_` + 43 base62) and domain challenge tokens.
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'cd_';
export const API_KEY_RANDOM_LENGTH = 43;
export const KEY_DISPLAY_PREFIX_LENGTH = 8;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// Bytes at or above 248 (= 4 * 62) are dropped so that `byte % 62` is uniform.
const UNBIASED_BYTE_LIMIT = 256 - (256 % BASE62.length);
const API_KEY_PATTERN = /^cd_[0-9A-Za-z]{43}$/;

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      if (byte < UNBIASED_BYTE_LIMIT && out.length < length) out += BASE62[byte % BASE62.length];
    }
  }
  return out;
}

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(API_KEY_RANDOM_LENGTH);
}

/** Settings key holding the SHA-256 (hex) of the operator token set through the API. */
export const OPERATOR_TOKEN_SETTING = 'operator_token_sha256';

/** What is stored of a bearer secret (API keys, the operator token): hex SHA-256; lookups go by it. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The part of a key kept for display. */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_DISPLAY_PREFIX_LENGTH);
}

/** Shape check only, to skip the lookup for strings that cannot be keys. */
export function looksLikeApiKey(s: string): boolean {
  return API_KEY_PATTERN.test(s);
}

/** 32 random bytes, lowercase hex: the value behind `custom-domain-verify=`. */
export function generateChallengeToken(): string {
  return randomBytes(32).toString('hex');
}
