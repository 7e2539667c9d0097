// The assertion the edge sends to origins (DECISIONS §4): a compact JWS (HS256)
// whose HMAC key is the secret string's UTF-8 bytes as written, deployment key included.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';

export const ASSERTION_ISSUER = 'custom-domain-service';
export const ASSERTION_TTL_SECONDS = 300;
export const ASSERTION_KID_PREFIX = 'ak_';
/** `ak_` + 16 lowercase hex: the shape of every issued key id. */
export const ASSERTION_KID_PATTERN = /^ak_[0-9a-f]{16}$/;

export interface AssertionClaimsInput {
  kid: string;
  secret: string;
  /** The application slug: the audience. */
  slug: string;
  domainId: string;
  hostname: string;
  reference: string;
  now: Date;
}

/** Signs one assertion: header `kid`; claims iss, aud, sub, hostname, reference, iat and exp = iat + 300. */
export function signAssertion(input: AssertionClaimsInput): Promise<string> {
  const iat = Math.floor(input.now.getTime() / 1000);
  return new SignJWT({ hostname: input.hostname, reference: input.reference })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: input.kid })
    .setIssuer(ASSERTION_ISSUER)
    .setAudience(input.slug)
    .setSubject(input.domainId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ASSERTION_TTL_SECONDS)
    .sign(new TextEncoder().encode(input.secret));
}

/** A new application assertion key: `ak_` + 16 random hex, and 32 random bytes base64url as the secret. */
export function generateAssertionKey(): { kid: string; secret: string } {
  return { kid: ASSERTION_KID_PREFIX + randomBytes(8).toString('hex'), secret: randomBytes(32).toString('base64url') };
}

export interface AssertionKeyState {
  kid: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/**
 * The key that signs now: the newest key that is not revoked (on equal
 * `createdAt`, the later one in `keys`), or the deployment key when there is none.
 */
export function selectSigningKey<K extends AssertionKeyState, D extends { kid: string }>(keys: readonly K[], deployment: D): K | D {
  let newest: K | null = null;
  for (const key of keys) {
    if (key.revokedAt === null && (newest === null || key.createdAt.getTime() >= newest.createdAt.getTime())) newest = key;
  }
  return newest ?? deployment;
}
