import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, SecretBoxError } from './secret-box';

const key = randomBytes(32);

/** Flips one bit of the decoded part `index` (1 iv, 2 tag, 3 ciphertext). */
function flipBit(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index] as string, 'base64url');
  bytes[0] = (bytes[0] as number) ^ 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('encryptSecret / decryptSecret', () => {
  it('round-trips, including non-ASCII text and the empty string', () => {
    for (const secret of ['whsec_abc', 'ключ-🔑', '', 'x'.repeat(5000)]) {
      expect(decryptSecret(encryptSecret(secret, key), key)).toBe(secret);
    }
  });

  it('uses a fresh 12-byte IV and a 16-byte tag each time, and never shows the plaintext', () => {
    const a = encryptSecret('same secret', key);
    const b = encryptSecret('same secret', key);
    expect(a).not.toBe(b);
    const [version, iv, tag, ciphertext] = a.split('.');
    expect(version).toBe('v1');
    expect(Buffer.from(iv as string, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag as string, 'base64url')).toHaveLength(16);
    expect(Buffer.from(ciphertext as string, 'base64url')).toHaveLength('same secret'.length);
    expect(a).not.toContain('same secret');
    expect(a).not.toContain(Buffer.from('same secret').toString('base64url'));
  });

  it.each([
    ['the IV', 1],
    ['the tag', 2],
    ['the ciphertext', 3],
  ])('detects a changed bit in %s', (_part, index) => {
    const sealed = encryptSecret('a secret worth keeping', key);
    expect(() => decryptSecret(flipBit(sealed, index), key)).toThrow(SecretBoxError);
  });

  it('refuses another key', () => {
    const sealed = encryptSecret('a secret', key);
    expect(() => decryptSecret(sealed, randomBytes(32))).toThrow(/does not authenticate/);
  });

  it('refuses malformed input and keys of the wrong size', () => {
    const sealed = encryptSecret('a secret', key);
    expect(() => decryptSecret('plain text', key)).toThrow(SecretBoxError);
    expect(() => decryptSecret(sealed.replace(/^v1/, 'v2'), key)).toThrow(/known format/);
    expect(() => decryptSecret(sealed.split('.').slice(0, 3).join('.'), key)).toThrow(SecretBoxError);
    const parts = sealed.split('.');
    expect(() => decryptSecret([parts[0], 'AAAA', parts[2], parts[3]].join('.'), key)).toThrow(/malformed/);
    expect(() => encryptSecret('a secret', randomBytes(16))).toThrow(/32 bytes/);
    expect(() => decryptSecret(sealed, randomBytes(31))).toThrow(/32 bytes/);
  });
});
