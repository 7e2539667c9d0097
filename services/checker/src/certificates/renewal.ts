// When a certificate is renewed: 30 days before expiry, or earlier when the
// CA's ACME Renewal Information (RFC 9773) suggests a window that has begun.
import * as x509 from '@peculiar/x509';

/** Renewal starts this long before a certificate's expiry. */
export const RENEW_BEFORE_MS = 30 * 24 * 3600_000;

export interface RenewalWindow {
  start: Date;
  end: Date;
}

/** True when the certificate should be replaced now. */
export function renewalDue(notAfter: Date, now: Date, window: RenewalWindow | null): boolean {
  if (notAfter.getTime() - now.getTime() <= RENEW_BEFORE_MS) return true;
  return window !== null && window.start.getTime() <= now.getTime();
}

/**
 * The RFC 9773 certificate identifier of a PEM certificate, or of a chain's
 * leaf (its first certificate): base64url of the leaf's Authority Key
 * Identifier keyIdentifier, a dot, base64url of the DER bytes of its serial
 * number. Null when the leaf has no AKI key identifier or does not parse.
 */
export function ariCertId(pem: string): string | null {
  let leaf: x509.X509Certificate;
  try {
    leaf = new x509.X509Certificate(pem); // of a chain, the first certificate
  } catch {
    return null;
  }
  const keyId = leaf.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
  if (!keyId) return null;
  let serial = leaf.serialNumber.toLowerCase();
  if (serial.length % 2 === 1) serial = `0${serial}`;
  // A DER INTEGER is positive only without its high bit set.
  if (/^[89a-f]/.test(serial)) serial = `00${serial}`;
  return `${Buffer.from(keyId, 'hex').toString('base64url')}.${Buffer.from(serial, 'hex').toString('base64url')}`;
}
