import { caFailureOf, CA_FAILURES } from './acme-transport';

describe('caFailureOf', () => {
  it('names the failures at the CA\'s side', () => {
    expect(caFailureOf(500, 'urn:ietf:params:acme:error:serverInternal')).toBe(CA_FAILURES.serverError);
    expect(caFailureOf(503, undefined)).toBe(CA_FAILURES.serverError);
    expect(caFailureOf(429, 'urn:ietf:params:acme:error:rateLimited')).toBe(CA_FAILURES.rateLimited);
    expect(caFailureOf(400, 'urn:ietf:params:acme:error:rateLimited')).toBe(CA_FAILURES.rateLimited);
    expect(caFailureOf(429, undefined)).toBe(CA_FAILURES.rateLimited);
  });

  it('leaves every other answer to the order: the customer\'s DNS, CAA, a refused name', () => {
    expect(caFailureOf(200, undefined)).toBeNull();
    expect(caFailureOf(403, 'urn:ietf:params:acme:error:caa')).toBeNull();
    expect(caFailureOf(400, 'urn:ietf:params:acme:error:dns')).toBeNull();
    expect(caFailureOf(400, 'urn:ietf:params:acme:error:badNonce')).toBeNull();
    expect(caFailureOf(400, 'urn:ietf:params:acme:error:rejectedIdentifier')).toBeNull();
  });
});
