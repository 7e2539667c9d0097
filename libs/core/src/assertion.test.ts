import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { ASSERTION_KID_PATTERN, generateAssertionKey, selectSigningKey, signAssertion, type AssertionKeyState } from './assertion';

const NOW = new Date('2026-02-03T04:05:06.789Z');
const IAT = Math.floor(NOW.getTime() / 1000);
const input = {
  kid: 'ak_0123456789abcdef',
  secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA',
  slug: 'shop',
  domainId: '5b0c3f0e-8a0e-4d5e-9d8a-2f0a4b6c7d8e',
  hostname: 'shop.example.com',
  reference: 'customer-42',
  now: NOW,
};
const utf8 = (s: string) => new TextEncoder().encode(s);
/** jose's clock at a given Unix second. */
const at = (seconds: number) => ({ currentDate: new Date(seconds * 1000) });

describe('signAssertion', () => {
  it("is accepted by jose's jwtVerify with the right key, issuer and audience", async () => {
    const token = await signAssertion(input);
    const { payload, protectedHeader } = await jwtVerify(token, utf8(input.secret), {
      issuer: 'custom-domain-service', audience: 'shop', algorithms: ['HS256'], ...at(IAT + 10),
    });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT', kid: 'ak_0123456789abcdef' });
    expect(payload).toEqual({
      iss: 'custom-domain-service', aud: 'shop', sub: input.domainId, hostname: 'shop.example.com', reference: 'customer-42',
      iat: IAT, exp: IAT + 300,
    });
  });

  it('uses the secret text itself as the HMAC key, not its decoded bytes', async () => {
    const token = await signAssertion(input);
    await expect(jwtVerify(token, Buffer.from(input.secret, 'base64url'), at(IAT))).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it('is refused when tampered with', async () => {
    const token = await signAssertion(input);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, hostname: 'evil.example.com' })).toString('base64url');
    await expect(jwtVerify(`${header}.${forged}.${signature}`, utf8(input.secret), at(IAT))).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it('is refused with a wrong key, a wrong audience or issuer', async () => {
    const token = await signAssertion(input);
    await expect(jwtVerify(token, utf8(`${input.secret}x`), at(IAT))).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
    await expect(jwtVerify(token, utf8(input.secret), { audience: 'other-app', ...at(IAT) })).rejects.toBeInstanceOf(errors.JWTClaimValidationFailed);
    await expect(jwtVerify(token, utf8(input.secret), { issuer: 'someone-else', ...at(IAT) })).rejects.toBeInstanceOf(errors.JWTClaimValidationFailed);
  });

  it('expires 300 seconds after it was issued', async () => {
    const token = await signAssertion(input);
    await expect(jwtVerify(token, utf8(input.secret), at(IAT + 299))).resolves.toBeDefined();
    await expect(jwtVerify(token, utf8(input.secret), at(IAT + 300))).rejects.toBeInstanceOf(errors.JWTExpired);
  });

  it('names the signing key in the header', async () => {
    const token = await signAssertion({ ...input, kid: 'deployment' });
    expect(decodeProtectedHeader(token).kid).toBe('deployment');
  });
});

describe('generateAssertionKey', () => {
  it('makes ak_ + 16 hex ids and 32-byte base64url secrets, different each time', () => {
    const keys = Array.from({ length: 50 }, generateAssertionKey);
    for (const { kid, secret } of keys) {
      expect(kid).toMatch(ASSERTION_KID_PATTERN);
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    }
    expect(new Set(keys.map((k) => k.kid)).size).toBe(50);
    expect(new Set(keys.map((k) => k.secret)).size).toBe(50);
  });
});

describe('selectSigningKey', () => {
  const deployment = { kid: 'deployment', secret: 'deployment-secret' };
  const key = (kid: string, createdMs: number, revoked = false): AssertionKeyState => ({
    kid, createdAt: new Date(createdMs), revokedAt: revoked ? new Date(createdMs + 1) : null,
  });

  it('falls back to the deployment key when there is no key, or none is active', () => {
    expect(selectSigningKey([], deployment)).toBe(deployment);
    expect(selectSigningKey([key('ak_a', 1, true), key('ak_b', 2, true)], deployment)).toBe(deployment);
  });

  it('picks the newest active key, whatever the order', () => {
    const keys = [key('ak_b', 20), key('ak_c', 30, true), key('ak_a', 10)];
    expect(selectSigningKey(keys, deployment).kid).toBe('ak_b');
    expect(selectSigningKey([...keys].reverse(), deployment).kid).toBe('ak_b');
  });

  it('lets the previous key take over when the newest is revoked', () => {
    expect(selectSigningKey([key('ak_a', 10), key('ak_b', 20, true)], deployment).kid).toBe('ak_a');
  });

  it('breaks a tie on createdAt by position: the later one wins', () => {
    expect(selectSigningKey([key('ak_a', 10), key('ak_b', 10)], deployment).kid).toBe('ak_b');
  });
});
