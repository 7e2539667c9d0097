import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { dataKeyId, decryptSecret, encryptSecret, isSealedWithFirstKey, orderKeyId, resealSecret, SecretBoxError, type SealLabel } from './secret-box';

const key = randomBytes(32);
const label: SealLabel = { purpose: 'webhook-secret', id: '0d7c2a4e-5f3b-4c1d-9e8f-1a2b3c4d5e6f' };

/** A value as it was sealed before labels (`v1.<iv>.<tag>.<ciphertext>`, no AAD) or before key ids (v2, with the AAD). */
function legacySeal(plaintext: string, version: 'v1' | 'v2' = 'v1', sealingKey: Buffer = key): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey, iv, { authTagLength: 16 });
  if (version === 'v2') cipher.setAAD(Buffer.from(`cds:${label.purpose}:${label.id}`));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [version, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** Flips one bit of the decoded part `index` (v3: 2 iv, 3 tag, 4 ciphertext; v1: 1, 2, 3). */
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
    const [version, keyId, iv, tag, ciphertext] = a.split('.');
    expect(version).toBe('v3');
    expect(keyId).toBe(createHash('sha256').update(key).digest('hex').slice(0, 8));
    expect(Buffer.from(iv as string, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag as string, 'base64url')).toHaveLength(16);
    expect(Buffer.from(ciphertext as string, 'base64url')).toHaveLength('same secret'.length);
    expect(a).not.toContain('same secret');
    expect(a).not.toContain(Buffer.from('same secret').toString('base64url'));
  });

  it.each([
    ['the IV', 2],
    ['the tag', 3],
    ['the ciphertext', 4],
  ])('detects a changed bit in %s', (_part, index) => {
    const sealed = encryptSecret('a secret worth keeping', key, label);
    expect(() => decryptSecret(flipBit(sealed, index), key, label)).toThrow(SecretBoxError);
  });

  it('refuses another key', () => {
    const sealed = encryptSecret('a secret', key, label);
    expect(() => decryptSecret(sealed, randomBytes(32), label)).toThrow(`was sealed with data encryption key ${dataKeyId(key)}, which is not configured`);
  });

  it('refuses malformed input and keys of the wrong size', () => {
    const sealed = encryptSecret('a secret', key, label);
    expect(() => decryptSecret('plain text', key, label)).toThrow(SecretBoxError);
    expect(() => decryptSecret(sealed.replace(/^v3/, 'v4'), key, label)).toThrow(/known format/);
    expect(() => decryptSecret(sealed.replace(/^v3/, 'v2'), key, label)).toThrow(/known format/);
    expect(() => decryptSecret(sealed.split('.').slice(0, 4).join('.'), key, label)).toThrow(SecretBoxError);
    const parts = sealed.split('.');
    expect(() => decryptSecret([parts[0], parts[1], 'AAAA', parts[3], parts[4]].join('.'), key, label)).toThrow(/malformed/);
    expect(() => decryptSecret(sealed, [], label)).toThrow(/No data encryption key/);
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
    const [, , ...rest] = sealed.split('.');
    expect(() => decryptSecret(['v1', ...rest].join('.'), key, label)).toThrow(/does not open/);
  });
});

describe('several data encryption keys', () => {
  const older = randomBytes(32);
  const newer = randomBytes(32);

  it('seals with the first key and names it; opens with the key named, wherever it is in the list', () => {
    const sealed = encryptSecret('whsec_a', [newer, older], label);
    expect(sealed.split('.')[1]).toBe(dataKeyId(newer));
    expect(decryptSecret(sealed, [older, newer], label)).toBe('whsec_a');
    expect(decryptSecret(sealed, newer, label)).toBe('whsec_a');
    expect(() => decryptSecret(sealed, older, label)).toThrow(`was sealed with data encryption key ${dataKeyId(newer)}, which is not configured`);
  });

  it('opens a value sealed before key ids (v2 and v1) with whichever configured key opens it', () => {
    expect(decryptSecret(legacySeal('whsec_v2', 'v2', older), [newer, older], label)).toBe('whsec_v2');
    expect(decryptSecret(legacySeal('whsec_v1', 'v1', older), [newer, older], label)).toBe('whsec_v1');
    expect(() => decryptSecret(legacySeal('whsec_v2', 'v2', older), [newer], label)).toThrow(/does not open/);
  });

  it('a changed key id selects no key or the wrong one, so the value does not open', () => {
    const parts = encryptSecret('whsec_a', [newer, older], label).split('.');
    expect(() => decryptSecret([parts[0], dataKeyId(older), ...parts.slice(2)].join('.'), [newer, older], label)).toThrow(/does not open/);
  });

  it('tells whether a value is already sealed with the first key in the current format', () => {
    expect(isSealedWithFirstKey(encryptSecret('x', older, label), [older, newer])).toBe(true);
    expect(isSealedWithFirstKey(encryptSecret('x', older, label), [newer, older])).toBe(false);
    expect(isSealedWithFirstKey(legacySeal('x', 'v2', newer), [newer])).toBe(false);
  });

  it('reseals with the first key in the current format, once', () => {
    const resealed = resealSecret(legacySeal('whsec_v1', 'v1', older), [newer, older], label) as string;
    expect(resealed.split('.').slice(0, 2)).toEqual(['v3', dataKeyId(newer)]);
    expect(decryptSecret(resealed, newer, label)).toBe('whsec_v1');
    expect(resealSecret(resealed, [newer, older], label)).toBeNull();
    expect(() => resealSecret(encryptSecret('x', randomBytes(32), label), [newer, older], label)).toThrow(SecretBoxError);
  });

  it('refuses a key of the wrong size anywhere in the list', () => {
    expect(() => encryptSecret('x', [newer, randomBytes(16)], label)).toThrow(/32 bytes/);
  });
});
