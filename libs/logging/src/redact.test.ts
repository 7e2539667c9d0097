import { maskSecrets, redact, redactField, REDACTED } from './redact';

const API_KEY = 'cd_4fTq9ZxY2bN7mK1pR8sV3wL6hJ0cD5gE9aB2nM4kQ7t';
const WEBHOOK_SECRET = 'whsec_Zm9vYmFyYmF6-_quxQ1234567890abcdefghijklmno';

describe('redact', () => {
  it.each(['authorization', 'Authorization', 'x-operator-token', 'accessToken', 'clientSecret', 'password', 'api_key', 'apiKey', 'API-KEY', 'cookie', 'set-cookie'])(
    'replaces the value under %j',
    (key) => {
      expect(redact({ [key]: 'sensitive', other: 'kept' })).toEqual({ [key]: REDACTED, other: 'kept' });
    },
  );

  it('replaces whole objects under secret keys and works at any depth, in arrays too', () => {
    const input = {
      request: { headers: { Authorization: 'Bearer x', host: 'api.example' } },
      list: [{ token: { nested: true } }, { name: 'plain' }],
      deep: { a: { b: { c: { password: 'hunter2', keep: 1 } } } },
    };
    expect(redact(input)).toEqual({
      request: { headers: { Authorization: REDACTED, host: 'api.example' } },
      list: [{ token: REDACTED }, { name: 'plain' }],
      deep: { a: { b: { c: { password: REDACTED, keep: 1 } } } },
    });
  });

  it('masks API keys, webhook secrets and bearer tokens inside strings', () => {
    expect(maskSecrets(`key ${API_KEY} used`)).toBe(`key cd_${REDACTED} used`);
    expect(maskSecrets(`secret=${WEBHOOK_SECRET}.`)).toBe(`secret=whsec_${REDACTED}.`);
    expect(maskSecrets('Authorization: Bearer op-token-123, next')).toBe(`Authorization: Bearer ${REDACTED}, next`);
    expect(redact({ note: `got ${API_KEY}`, items: [WEBHOOK_SECRET] })).toEqual({
      note: `got cd_${REDACTED}`,
      items: [`whsec_${REDACTED}`],
    });
  });

  it('leaves ordinary text and identifiers alone', () => {
    const text = 'domain shop.example.com moved to ready; abcd_1234 cd_ x';
    expect(maskSecrets(text)).toBe(text);
  });

  it('never modifies its input', () => {
    const input = { headers: { cookie: 'a=b' }, message: API_KEY };
    const snapshot = structuredClone(input);
    redact(input);
    expect(input).toEqual(snapshot);
  });

  it('turns Errors into plain objects with masked message and stack', () => {
    const cause = new Error(`inner ${API_KEY}`);
    const error = Object.assign(new Error(`outer ${WEBHOOK_SECRET}`, { cause }), { code: 'E_TEST', token: 't' });
    const result = redact(error) as Record<string, unknown>;
    expect(result).toMatchObject({ name: 'Error', message: `outer whsec_${REDACTED}`, code: 'E_TEST', token: REDACTED });
    expect(result.stack).toContain(`whsec_${REDACTED}`);
    expect(result.stack).not.toContain(WEBHOOK_SECRET);
    expect(result.cause).toMatchObject({ message: `inner cd_${REDACTED}` });
  });

  it('summarizes binary data and survives cycles', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(redact({ key: Buffer.alloc(32), cyclic })).toEqual({
      key: '[binary 32 bytes]',
      cyclic: { name: 'loop', self: '[circular]' },
    });
  });

  it('keeps a repeated (non-cyclic) reference', () => {
    const shared = { host: 'a' };
    expect(redact({ one: shared, two: shared })).toEqual({ one: { host: 'a' }, two: { host: 'a' } });
  });

  it('redactField checks the key itself first', () => {
    expect(redactField('operatorToken', 'abc')).toBe(REDACTED);
    expect(redactField('message', `key ${API_KEY}`)).toBe(`key cd_${REDACTED}`);
  });
});
