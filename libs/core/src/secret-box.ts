// Secrets that must be recoverable (assertion keys, webhook secrets, private
// keys) are stored sealed with DATA_ENCRYPTION_KEY: AES-256-GCM, a random
// 12-byte IV per secret and the 16-byte authentication tag, so a changed byte
// is detected, not decrypted. Each value is bound to the row it is stored in:
// the additional authenticated data names the row's purpose and id, so a value
// copied into another row (or read for another purpose) does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Format markers: v2 is bound to its row (AAD); v1, written before, is not and still opens without it. */
const VERSION = 'v2';
const LEGACY_VERSION = 'v1';

/** What each kind of sealed value is kept for: part of the AAD. */
export const SEAL_PURPOSES = {
  /** assertion_keys.secret_sealed; id: the kid. */
  assertionKey: 'assertion-key',
  /** webhook_secrets.secret_sealed; id: the secret's row id. */
  webhookSecret: 'webhook-secret',
  /** certificates.key_sealed; id: the hostname. */
  certificateKey: 'certificate-key',
  /** A sealed settings value (ACME account key, internal CA key); id: the setting's key. */
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

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new SecretBoxError(`The data encryption key must be ${KEY_BYTES} bytes (got ${key.length}).`);
}

/** `v2.<iv>.<tag>.<ciphertext>`, each part base64url, authenticated together with the label. */
export function encryptSecret(plaintext: string, key: Buffer, label: SealLabel): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(label));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/**
 * The plaintext of `encryptSecret`'s output for the same label; throws
 * SecretBoxError when it was altered, sealed with another key, or sealed for
 * another row or purpose. A v1 value (sealed before labels) opens without one.
 */
export function decryptSecret(sealed: string, key: Buffer, label: SealLabel): string {
  checkKey(key);
  const parts = sealed.split('.');
  const version = parts[0];
  if (parts.length !== 4 || (version !== VERSION && version !== LEGACY_VERSION)) throw new SecretBoxError(`The sealed ${named(label)} is not of a known format.`);
  const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64url')) as [Buffer, Buffer, Buffer];
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError(`The sealed ${named(label)} is malformed.`);
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  if (version === VERSION) decipher.setAAD(aad(label));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError(`The sealed ${named(label)} does not open: altered, copied from another row, or sealed with another key.`);
  }
}

