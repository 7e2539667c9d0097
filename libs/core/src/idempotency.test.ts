import { createHash } from 'node:crypto';
import { canonicalJson, requestHash } from './idempotency';

describe('canonicalJson', () => {
  it('sorts keys recursively and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('sorts integer-like keys as strings too', () => {
    expect(canonicalJson({ b: 1, 10: 2, 2: 3 })).toBe('{"10":2,"2":3,"b":1}');
  });

  it('keeps array order and writes scalars as JSON', () => {
    expect(canonicalJson([2, 1, 'é', false])).toBe('[2,1,"é",false]');
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(null)).toBe('null');
  });

  it('treats undefined like JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined])).toBe('[null]');
  });

  it('uses toJSON when a value has one', () => {
    expect(canonicalJson({ at: new Date('2026-01-02T03:04:05.678Z') })).toBe('{"at":"2026-01-02T03:04:05.678Z"}');
  });
});

describe('requestHash', () => {
  it('is the sha256 hex of the canonical JSON', () => {
    const expected = createHash('sha256').update('{"a":1,"b":2}').digest('hex');
    expect(requestHash({ b: 2, a: 1 })).toBe(expected);
    expect(requestHash({ a: 1, b: 2 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on key order', () => {
    const a = { hostname: 'shop.example.com', reference: 'ws_1', metadata: { plan: 'pro', seats: 3 } };
    const b = { metadata: { seats: 3, plan: 'pro' }, reference: 'ws_1', hostname: 'shop.example.com' };
    expect(requestHash(a)).toBe(requestHash(b));
  });

  it('differs when a value differs', () => {
    const base = { hostname: 'shop.example.com', reference: 'ws_1' };
    expect(requestHash(base)).not.toBe(requestHash({ ...base, reference: 'ws_2' }));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: '1' }));
    expect(requestHash([1, 2])).not.toBe(requestHash([2, 1]));
    expect(requestHash({ a: { b: 1 } })).not.toBe(requestHash({ a: { b: 1, c: null } }));
  });
});
