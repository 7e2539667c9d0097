import { createHash } from 'node:crypto';
import { generateApiKey, generateChallengeToken, secretHash, keyPrefix, looksLikeApiKey } from './credentials';

describe('generateApiKey', () => {
  it('is cd_ followed by 43 base62 characters', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^cd_[0-9A-Za-z]{43}$/);
    expect(looksLikeApiKey(key)).toBe(true);
  });

  it('is different every time and uses the whole alphabet', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    expect(new Set(keys).size).toBe(keys.length);
    const seen = new Set(keys.map((key) => key.slice(3)).join(''));
    expect(seen.size).toBe(62);
  });
});

describe('secretHash and keyPrefix', () => {
  it('hashes with sha256 hex', () => {
    const key = 'cd_' + 'a'.repeat(43);
    expect(secretHash(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(secretHash(key)).not.toBe(secretHash('cd_' + 'b'.repeat(43)));
  });

  it('keeps the first 8 characters for display', () => {
    expect(keyPrefix('cd_AbCdEfGhIjK')).toBe('cd_AbCdE');
  });
});

describe('looksLikeApiKey', () => {
  it.each([
    ['cd_' + 'A'.repeat(43), true],
    ['cd_' + 'A'.repeat(42), false],
    ['cd_' + 'A'.repeat(44), false],
    ['cd_' + 'A'.repeat(42) + '_', false],
    ['xx_' + 'A'.repeat(43), false],
    [' cd_' + 'A'.repeat(43), false],
    ['', false],
  ])('%s -> %s', (s, expected) => {
    expect(looksLikeApiKey(s)).toBe(expected);
  });
});

describe('generateChallengeToken', () => {
  it('is 32 random bytes in lowercase hex', () => {
    const token = generateChallengeToken();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(generateChallengeToken()).not.toBe(token);
  });
});
