// Secrets that must be recoverable (assertion keys, webhook secrets, private
// keys) are stored sealed with DATA_ENCRYPTION_KEY: AES-256-GCM, a random
// 12-byte IV per secret and the 16-byte authentication tag, so a changed byte
// is detected, not decrypted. Each value is bound to the row it is stored in:
// the additional authenticated data names the row's purpose and id, so a value
// copied into another row (or read for another purpose) does not open.
// Several keys may be configured (DATA_ENCRYPTION_KEYS): the first seals, each
// opens, and a value names the key that sealed it by a short key id.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/**
 * Format markers: v3 names its key and is bound to its row (AAD); v2, written
 * before, is bound but names no key; v1, older still, is neither. All open.
 */
const VERSION = 'v3';
const UNNAMED_VERSION = 'v2';
const LEGACY_VERSION = 'v1';
const KEY_ID_HEX = 8;

/** What each kind of sealed value is kept for: part of the AAD. */
export const SEAL_PURPOSES = {
  /** assertion_keys.secret_sealed; id: the kid. */
  assertionKey: 'assertion-key',
  /** webhook_secrets.secret_sealed; id: the secret's row id. */
  webhookSecret: 'webhook-secret',
  /** certificates.key_sealed; id: the hostname. */
  certificateKey: 'certificate-key',
  /** A sealed settings value (ACME account key, internal CA key); id: the setting's key, which ends in `_sealed`. */
  setting: 'setting',
  /** acme_orders.key_sealed; id: `<hostname>:<order URL>` (orderKeyId). */
  acmeOrderKey: 'acme-order-key',
} as const;

export type SealPurpose = (typeof SEAL_PURPOSES)[keyof typeof SEAL_PURPOSES];

/** The row a sealed value belongs to. */
export interface SealLabel {
  purpose: SealPurpose;
  id: string;
}

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/** The id of a saved ACME order's key: a hostname holds no colon, so the pair reads one way only. */
export const orderKeyId = (hostname: string, orderUrl: string): string => `${hostname}:${orderUrl}`;

/** `cds:<purpose>:<id>`: the purpose holds no colon, so the text names one row only. */
const aad = (label: SealLabel): Buffer => Buffer.from(`cds:${label.purpose}:${label.id}`, 'utf8');

const named = (label: SealLabel): string => `${label.purpose} ${label.id}`;

/** One key, or the configured keys in order: the first seals, every one opens. */
export type DataKeys = Buffer | readonly Buffer[];

function keyList(keys: DataKeys): readonly Buffer[] {
  const list = Buffer.isBuffer(keys) ? [keys] : keys;
  if (list.length === 0) throw new SecretBoxError('No data encryption key is configured.');
  for (const key of list) {
    if (key.length !== KEY_BYTES) throw new SecretBoxError(`The data encryption key must be ${KEY_BYTES} bytes (got ${key.length}).`);
  }
  return list;
}

/** A key's public name inside sealed values: the first 8 hex digits of its SHA-256 (names it, reveals nothing usable). */
export function dataKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, KEY_ID_HEX);
}

/** `v3.<key id>.<iv>.<tag>.<ciphertext>`, sealed with the first key, authenticated together with the label. */
export function encryptSecret(plaintext: string, keys: DataKeys, label: SealLabel): string {
  const [key] = keyList(keys) as [Buffer];
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(label));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, dataKeyId(key), ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
}

/** True when the value is in the current format and sealed with the first key: resealing it would change nothing. */
export function isSealedWithFirstKey(sealed: string, keys: DataKeys): boolean {
  const [key] = keyList(keys) as [Buffer];
  return sealed.startsWith(`${VERSION}.${dataKeyId(key)}.`);
}

interface Parsed {
  version: string;
  keyId: string | null;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

function parse(sealed: string, label: SealLabel): Parsed {
  const parts = sealed.split('.');
  const version = parts[0];
  const namesKey = version === VERSION;
  const known = (namesKey && parts.length === 5) || ((version === UNNAMED_VERSION || version === LEGACY_VERSION) && parts.length === 4);
  if (!known) throw new SecretBoxError(`The sealed ${named(label)} is not of a known format.`);
  const [iv, tag, ciphertext] = parts.slice(namesKey ? 2 : 1).map((part) => Buffer.from(part, 'base64url')) as [Buffer, Buffer, Buffer];
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError(`The sealed ${named(label)} is malformed.`);
  return { version: version as string, keyId: namesKey ? (parts[1] as string) : null, iv, tag, ciphertext };
}

function open(value: Parsed, key: Buffer, label: SealLabel): string | null {
  const decipher = createDecipheriv(ALGORITHM, key, value.iv, { authTagLength: TAG_BYTES });
  if (value.version !== LEGACY_VERSION) decipher.setAAD(aad(label));
  decipher.setAuthTag(value.tag);
  try {
    return Buffer.concat([decipher.update(value.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * The plaintext of `encryptSecret`'s output for the same label; throws
 * SecretBoxError when it was altered, sealed with a key not among `keys`, or
 * sealed for another row or purpose. A v3 value opens with the key it names;
 * a v2 or v1 value (no key id) with whichever key opens it. A v1 value (sealed
 * before labels) opens without one.
 */
export function decryptSecret(sealed: string, keys: DataKeys, label: SealLabel): string {
  const list = keyList(keys);
  const value = parse(sealed, label);
  const candidates = value.keyId === null ? list : list.filter((key) => dataKeyId(key) === value.keyId);
  if (candidates.length === 0) {
    throw new SecretBoxError(`The sealed ${named(label)} was sealed with data encryption key ${value.keyId ?? ''}, which is not configured.`);
  }
  for (const key of candidates) {
    const plaintext = open(value, key, label);
    if (plaintext !== null) return plaintext;
  }
  throw new SecretBoxError(`The sealed ${named(label)} does not open: altered, copied from another row, or sealed with another key.`);
}

/**
 * The value sealed again with the first key in the current format (a v1 or v2
 * value becomes v3, bound to its label), or null when it already is; throws
 * SecretBoxError when no key among `keys` opens it.
 */
export function resealSecret(sealed: string, keys: DataKeys, label: SealLabel): string | null {
  if (isSealedWithFirstKey(sealed, keys)) return null;
  return encryptSecret(decryptSecret(sealed, keys, label), keys, label);
}
