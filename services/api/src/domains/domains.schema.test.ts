import { createDomainBody } from './domains.schema';

/** The error of a create body with this metadata, or null when it is accepted. */
const metadataError = (metadata: unknown) => createDomainBody.validate({ hostname: 'shop.example.com', reference: 'ws', metadata }).error?.details[0]?.path ?? null;

describe('metadata (DECISIONS §2)', () => {
  it.each<[string, Record<string, unknown>]>([
    ['the empty string as a value', { note: '' }],
    ['a 512-code-point value', { note: '🔑'.repeat(512) }],
    ['numbers, booleans and null', { seats: 12, ratio: -0.5, trial: false, owner: null }],
    ['a 64-code-point key', { ['🔑'.repeat(64)]: 'v' }],
    ['32 keys', Object.fromEntries(Array.from({ length: 32 }, (_v, i) => [`k${i}`, i % 2 ? '' : i]))],
    ['no keys', {}],
  ])('accepts %s', (_name, metadata) => {
    expect(metadataError(metadata)).toBeNull();
  });

  it.each<[string, unknown]>([
    ['a 513-code-point value', { note: 'x'.repeat(513) }],
    ['an empty key', { '': 'v' }],
    ['a 65-code-point key', { ['k'.repeat(65)]: 'v' }],
    ['33 keys', Object.fromEntries(Array.from({ length: 33 }, (_v, i) => [`k${i}`, i]))],
    ['an object value', { nested: { a: 1 } }],
    ['an array value', { list: [''] }],
    ['null', null],
    ['an array', ['']],
    ['a string', ''],
  ])('refuses %s', (_name, metadata) => {
    expect(metadataError(metadata)?.[0]).toBe('metadata');
  });
});
