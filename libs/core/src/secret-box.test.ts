import { createCipheriv, randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, orderKeyId, SecretBoxError, type SealLabel } from './secret-box';

const key = randomBytes(32);
const label: SealLabel = { purpose: 'webhook-secret', id: '0d7c2a4e-5f3b-4c1d-9e8f-1a2b3c4d5e6f' };

/** A value as it was sealed before labels: `v1.<iv>.<tag>.<ciphertext>`, no AAD. */
function legacySeal(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

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
      expect(decryptSecret(encryptSecret(secret, key, label), key, label)).toBe(secret);
    }
  });

  it('uses a fresh 12-byte IV and a 16-byte tag each time, and never shows the plaintext', () => {
    const a = encryptSecret('same secret', key, label);
    const b = encryptSecret('same secret', key, label);
    expect(a).not.toBe(b);
    const [version, iv, tag, ciphertext] = a.split('.');
    expect(version).toBe('v2');
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
    const sealed = encryptSecret('a secret worth keeping', key, label);
    expect(() => decryptSecret(flipBit(sealed, index), key, label)).toThrow(SecretBoxError);
  });

  it('refuses another key', () => {
    const sealed = encryptSecret('a secret', key, label);
    expect(() => decryptSecret(sealed, randomBytes(32), label)).toThrow(/does not open/);
  });

  it('refuses malformed input and keys of the wrong size', () => {
    const sealed = encryptSecret('a secret', key, label);
    expect(() => decryptSecret('plain text', key, label)).toThrow(SecretBoxError);
    expect(() => decryptSecret(sealed.replace(/^v2/, 'v3'), key, label)).toThrow(/known format/);
    expect(() => decryptSecret(sealed.split('.').slice(0, 3).join('.'), key, label)).toThrow(SecretBoxError);
    const parts = sealed.split('.');
    expect(() => decryptSecret([parts[0], 'AAAA', parts[2], parts[3]].join('.'), key, label)).toThrow(/malformed/);
    expect(() => encryptSecret('a secret', randomBytes(16), label)).toThrow(/32 bytes/);
    expect(() => decryptSecret(sealed, randomBytes(31), label)).toThrow(/32 bytes/);
  });
});

describe('the row a sealed value is bound to', () => {
  it('does not open for another row id of the same purpose, naming the row it was read for', () => {
    const sealed = encryptSecret('whsec_a', key, label);
    const other: SealLabel = { purpose: 'webhook-secret', id: 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b' };
    expect(() => decryptSecret(sealed, key, other)).toThrow(SecretBoxError);
    expect(() => decryptSecret(sealed, key, other)).toThrow(`The sealed webhook-secret ${other.id} does not open: altered, copied from another row, or sealed with another key.`);
  });

  it('does not open for another purpose with the same id', () => {
    const sealed = encryptSecret('PRIVATE KEY', key, { purpose: 'certificate-key', id: 'shop.example.com' });
    expect(decryptSecret(sealed, key, { purpose: 'certificate-key', id: 'shop.example.com' })).toBe('PRIVATE KEY');
    expect(() => decryptSecret(sealed, key, { purpose: 'setting', id: 'shop.example.com' })).toThrow(/does not open/);
    expect(() => decryptSecret(sealed, key, { purpose: 'certificate-key', id: 'www.shop.example.com' })).toThrow(/does not open/);
  });

  it("binds a saved order's key to its hostname and its order", () => {
    const id = orderKeyId('shop.example.com', 'https://ca.example/order/1');
    const sealed = encryptSecret('ORDER KEY', key, { purpose: 'acme-order-key', id });
    expect(decryptSecret(sealed, key, { purpose: 'acme-order-key', id })).toBe('ORDER KEY');
    expect(() => decryptSecret(sealed, key, { purpose: 'acme-order-key', id: orderKeyId('other.example.com', 'https://ca.example/order/1') })).toThrow(/does not open/);
    expect(() => decryptSecret(sealed, key, { purpose: 'acme-order-key', id: orderKeyId('shop.example.com', 'https://ca.example/order/2') })).toThrow(/does not open/);
  });

  it('opens a value sealed before labels (v1) whatever the label, and still detects a change in it', () => {
    const legacy = legacySeal('whsec_old');
    expect(decryptSecret(legacy, key, label)).toBe('whsec_old');
    expect(decryptSecret(legacy, key, { purpose: 'setting', id: 'anything' })).toBe('whsec_old');
    expect(() => decryptSecret(flipBit(legacy, 3), key, label)).toThrow(/does not open/);
    expect(() => decryptSecret(legacy, randomBytes(32), label)).toThrow(/does not open/);
  });

  it('does not open a labelled value relabelled as v1: the label cannot be stripped', () => {
    const sealed = encryptSecret('whsec_a', key, label);
    expect(() => decryptSecret(sealed.replace(/^v2/, 'v1'), key, label)).toThrow(/does not open/);
  });
});
